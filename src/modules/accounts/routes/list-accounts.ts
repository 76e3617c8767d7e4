import { LIST_PAGING } from '../../../core/agent-guide.js';
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
  description: `Tenant-owned accounts, newest first (a billing-system account: GET /accounts/{id}). ${LIST_PAGING.text}`,
  tags: TAGS,
  scope: 'read',
  query: AccountListQuery,
  responses: { 200: ListEnvelope(AccountSchema, 'The accounts.') },
  handler: async (request, _reply, deps) =>
    newestFirstList(request, deps.keyRing, {
      name: 'accounts',
      read: (tenantId, page) => listAccounts(deps.db, tenantId, request.query, page),
      present: presentAccount,
      actions: [next('createAccount', 'createAccount')],
    }),
});
