import { presentBillingAccount } from '../../../billing/schemas.js';
import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { AccountIdParams, AccountOrBillingSchema } from '../schemas.js';
import { resolveAccount } from '../service.js';
import { accountCreatedExample } from './create-account.js';
import { accountActions, missingBillingLink, TAGS } from './shared.js';

export const getAccountRoute = defineRoute({
  method: 'GET',
  path: '/accounts/:id',
  operationId: 'getAccount',
  summary: 'Get an account',
  description:
    'A tenant-owned account; else, when the id has the account-id format of the tenant’s billing integration, ' +
    'the billing-system account read live: `source: "billing"`, account number, open balance ' +
    '(decimal and minor units), contacts, and no `update` action. 404 when neither has it; 502 ' +
    '`billing_unavailable` when the billing system is down.',
  tags: TAGS,
  scope: 'read',
  params: AccountIdParams,
  responses: {
    200: Envelope(AccountOrBillingSchema, 'The account.', accountCreatedExample),
    ...errorResponses(404, 502),
  },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const resolved = await resolveAccount(deps, ctx.tenantId, request.params.id);
    if (!resolved) throw notFound('Account');
    if (resolved.source === 'local') {
      const adapter = await deps.billing.forTenant(deps.db, ctx.tenantId);
      const noBilling = missingBillingLink(adapter, resolved.account.externalId);
      return envelope(ctx, resolved.account, accountActions(resolved.account.id, true, noBilling));
    }
    return envelope(ctx, presentBillingAccount(resolved.account), accountActions(resolved.account.id, false));
  },
});
