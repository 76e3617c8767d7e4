import { BillingAccountSchema, presentBillingAccount } from '../../../billing/index.js';
import { LIST_PAGING } from '../../../core/agent-guide.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../../http/paging.js';
import { builtinEngineFor } from '../operations.js';
import { tags } from './shared.js';

export const listBillingAccountsRoute = defineRoute({
  method: 'GET',
  path: '/admin/billing/accounts',
  operationId: 'listBillingAccounts',
  summary: 'List built-in billing accounts',
  description: `Every account of the built-in billing engine for this tenant, newest first, with open balances. ${LIST_PAGING.text}`,
  tags,
  scope: 'admin',
  query: PageQuery,
  responses: {
    200: ListEnvelope(BillingAccountSchema, 'The billing accounts.'),
    ...errorResponses(502),
  },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const accounts = await (await builtinEngineFor(deps, ctx.tenantId)).listAccounts();
    return inMemoryList(deps.keyRing, ctx, request, 'billing-accounts', accounts.map(presentBillingAccount), [
      next('create', 'createBillingAccount'),
    ]);
  },
});
