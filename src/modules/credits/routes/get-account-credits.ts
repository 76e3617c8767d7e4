import { Type } from 'typebox';
import { createdKey, listOfRows, NEWEST_FIRST, pageRequest } from '../../../core/paging.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, next } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { listEnvelope, PageMeta } from '../../../http/paging.js';
import { CreditLedgerQuery, CreditLedgerSchema, creditLedgerExample } from '../schemas.js';
import { balancesOf, listEntries, presentEntry } from '../service.js';
import { AccountParams, requireAccount, TAGS } from './shared.js';

export const getAccountCreditsRoute = defineRoute({
  method: 'GET',
  path: '/accounts/:id/credits',
  operationId: 'getAccountCredits',
  summary: 'Get an account’s credit',
  description:
    'The credit balance per currency (the sum of the entries, less what remains of expired grants) and the ledger entries, newest first ' +
    '(`limit` and `cursor` page the entries).',
  tags: TAGS,
  scope: 'read',
  params: AccountParams,
  query: CreditLedgerQuery,
  responses: {
    200: Type.Object(
      { ...Envelope(CreditLedgerSchema, 'The ledger.').properties, meta: Type.Optional(PageMeta) },
      { description: 'The ledger.', examples: [creditLedgerExample] },
    ),
    ...errorResponses(404),
  },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const accountId = request.params.id;
    await requireAccount(deps, ctx.tenantId, accountId);
    const where = { tenantId: ctx.tenantId, list: `credits:${accountId}`, keys: deps.keyRing };
    const page = pageRequest(where, request.query, NEWEST_FIRST);
    const [balances, rows] = await Promise.all([
      balancesOf(deps.db, ctx.tenantId, accountId, deps.clock.now()),
      listEntries(deps.db, ctx.tenantId, accountId, page),
    ]);
    const list = listEnvelope(ctx, request, listOfRows(rows, page, createdKey, where, presentEntry), [
      next('grantCredit', 'grantCredit', { id: accountId }),
    ]);
    return { ...list, data: { accountId, balances, entries: list.data } };
  },
});
