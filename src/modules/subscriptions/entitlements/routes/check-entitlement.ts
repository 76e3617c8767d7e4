import { requireCtx } from '../../../../http/auth.js';
import { defineRoute } from '../../../../http/declared-route.js';
import { Envelope, envelope, next } from '../../../../http/envelope.js';
import { errorResponses } from '../../../../http/errors.js';
import {
  EntitlementCheckQuery,
  EntitlementCheckSchema,
  entitlementCheckExample,
} from '../entitlement-schemas.js';
import { checkFeature } from '../reader.js';
import { readerFor, TAGS, UNKNOWN } from './shared.js';

export const checkEntitlementRoute = defineRoute({
  method: 'GET',
  path: '/entitlements/check',
  operationId: 'checkEntitlement',
  summary: 'Check one feature of an account',
  description:
    'Whether the account may use `feature` now: `allowed`, the merged `limit` (null: unlimited or a flag) ' +
    `and \`grantedBy\`. No usage is tracked (no \`usage\`): compare your count with \`limit\`. ${UNKNOWN}`,
  tags: TAGS,
  scope: 'read',
  query: EntitlementCheckQuery,
  responses: {
    200: Envelope(EntitlementCheckSchema, 'The feature’s check.', entitlementCheckExample),
    ...errorResponses(404, 409),
  },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const { accountId, feature } = request.query;
    const set = await readerFor(deps).read(ctx.tenantId, accountId);
    return envelope(ctx, { accountId, feature, ...checkFeature(set, feature) }, [
      next('entitlements', 'getAccountEntitlements', { id: accountId }),
    ]);
  },
});
