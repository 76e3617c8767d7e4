import { requireCtx } from '../../../../http/auth.js';
import { defineRoute } from '../../../../http/declared-route.js';
import { Envelope, envelope, next } from '../../../../http/envelope.js';
import { errorResponses } from '../../../../http/errors.js';
import {
  AccountEntitlementsParams,
  AccountEntitlementsSchema,
  accountEntitlementsExample,
} from '../entitlement-schemas.js';
import { readerFor, TAGS, UNKNOWN } from './shared.js';

export const getAccountEntitlementsRoute = defineRoute({
  method: 'GET',
  path: '/accounts/:id/entitlements',
  operationId: 'getAccountEntitlements',
  summary: 'Get an account’s entitlements',
  description:
    'What the account (organization) is entitled to now: the merge of its subscriptions until cancelled ' +
    '(add-ons while their parent grants). Limits add up, `null` (unlimited) wins, flags OR; `{}` grants ' +
    `nothing. \`resolvedFrom\`: each subscription and what its product grants. Always current. ${UNKNOWN}`,
  tags: TAGS,
  scope: 'read',
  params: AccountEntitlementsParams,
  responses: {
    200: Envelope(AccountEntitlementsSchema, 'The account’s entitlements.', accountEntitlementsExample),
    ...errorResponses(404, 409),
  },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const accountId = request.params.id;
    const set = await readerFor(deps).read(ctx.tenantId, accountId);
    return envelope(ctx, { accountId, ...set }, [
      next('self', 'getAccountEntitlements', { id: accountId }),
      next('account', 'getAccount', { id: accountId }),
      next('subscriptions', 'listSubscriptions', { accountId }),
    ]);
  },
});
