import { LIST_PAGING } from '../../../core/agent-guide.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { ListEnvelope, newestFirstList } from '../../../http/paging.js';
import { AccountListQuery, AccountSchema } from '../schemas.js';
import { listAccounts, presentAccount } from '../service.js';
import { TAGS } from './shared.js';

export const listAccountsRoute = defineRoute({
  method: 'GET',
  path: '/accounts',
  operationId: 'listAccounts',
  summary: 'List accounts',
  description:
    'The tenant-owned accounts, newest first (a billing-system account is read with GET /accounts/{id}). ' +
    LIST_PAGING.text,
  tags: TAGS,
  scope: 'read',
  query: AccountListQuery,
  responses: { 200: ListEnvelope(AccountSchema, 'The accounts.') },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    return newestFirstList(
      ctx,
      request,
      deps.keyRing,
      'accounts',
      (page) => listAccounts(deps.db, ctx.tenantId, request.query, page),
      presentAccount,
      [next('createAccount', 'createAccount')],
    );
  },
});
