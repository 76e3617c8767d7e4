import { requireCtx } from '../../../http/auth.js';
import type { Deps } from '../../../http/deps.js';
import { action, Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import type { TypedApp } from '../../../http/types.js';
import {
  AccountEntitlementsParams,
  AccountEntitlementsSchema,
  accountEntitlementsExample,
  EntitlementCheckQuery,
  EntitlementCheckSchema,
  entitlementCheckExample,
} from './entitlement-schemas.js';
import { checkFeature, EntitlementReader } from './reader.js';

const TAGS = ['Entitlements'];
const UNKNOWN =
  '404: not this tenant’s account. 409: a subscription’s product is gone or unreadable (set unknown, never empty).';

export function registerEntitlementRoutes(app: TypedApp, deps: Deps) {
  // One per app (process): what it remembers is safe to keep (src/modules/subscriptions/entitlements/reader.ts).
  const reader = new EntitlementReader(deps);

  app.get(
    '/api/v1/accounts/:id/entitlements',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getAccountEntitlements',
        summary: 'Get an account’s entitlements',
        description:
          'What the account (organization) is entitled to now: the merge of its subscriptions until cancelled ' +
          '(add-ons while their parent grants). Limits add up, `null` (unlimited) wins, flags OR; `{}` grants ' +
          `nothing. \`resolvedFrom\`: each subscription and what its product grants. Always current. ${UNKNOWN}`,
        tags: TAGS,
        params: AccountEntitlementsParams,
        response: {
          200: Envelope(AccountEntitlementsSchema, 'The account’s entitlements.', accountEntitlementsExample),
          ...errorResponses(404, 409),
        },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const accountId = request.params.id;
      const set = await reader.read(ctx.tenantId, accountId);
      return envelope(ctx, { accountId, ...set }, [
        action('self', 'GET', `/accounts/${accountId}/entitlements`, 'read'),
        action('account', 'GET', `/accounts/${accountId}`, 'read'),
        action('subscriptions', 'GET', `/subscriptions?accountId=${accountId}`, 'read'),
      ]);
    },
  );

  app.get(
    '/api/v1/entitlements/check',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'checkEntitlement',
        summary: 'Check one feature of an account',
        description:
          'Whether the account may use `feature` now: `allowed`, the merged `limit` (null: unlimited or a flag) ' +
          `and \`grantedBy\`. No usage is tracked (no \`usage\`): compare your count with \`limit\`. ${UNKNOWN}`,
        tags: TAGS,
        querystring: EntitlementCheckQuery,
        response: {
          200: Envelope(EntitlementCheckSchema, 'The feature’s check.', entitlementCheckExample),
          ...errorResponses(404, 409),
        },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const { accountId, feature } = request.query;
      const set = await reader.read(ctx.tenantId, accountId);
      return envelope(ctx, { accountId, feature, ...checkFeature(set, feature) }, [
        action('entitlements', 'GET', `/accounts/${accountId}/entitlements`, 'read'),
      ]);
    },
  );
}
