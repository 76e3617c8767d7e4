import { Type } from 'typebox';
import { presentInvoice } from '../../billing/index.js';
import { notFound } from '../../core/errors.js';
import { createdKey, listOfRows, NEWEST_FIRST, pageRequest } from '../../core/paging.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { type Presented, respond } from '../../http/operation.js';
import { listEnvelope, PageMeta } from '../../http/paging.js';
import type { TypedApp } from '../../http/types.js';
import { isOrganizationId, resolveAccount } from '../accounts/index.js';
import { InvoiceParams } from '../payments/index.js';
import { applyCredit, type CreditApplication, grantCredit } from './operations.js';
import {
  ApplyCreditBody,
  CreditApplicationSchema,
  CreditEntrySchema,
  CreditLedgerQuery,
  CreditLedgerSchema,
  creditApplicationExample,
  creditEntryExample,
  creditLedgerExample,
  GrantCreditBody,
} from './schemas.js';
import { balancesOf, type CreditEntryApi, listEntries, presentEntry } from './service.js';

const TAGS = ['Credits'];
const AccountParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Account (organization) id.' }),
});

const ledgerActions = (accountId: string): ActionSpec[] => [
  action('credits', 'GET', `/accounts/${accountId}/credits`, 'read'),
];

/** Credit is kept for the tenant's own accounts (organizations): anything else is 404. */
async function requireAccount(deps: Deps, tenantId: string, id: string) {
  if (!isOrganizationId(id) || (await resolveAccount(deps, tenantId, id))?.source !== 'local')
    throw notFound('Account');
}

export function registerCreditRoutes(app: TypedApp, deps: Deps) {
  app.get(
    '/api/v1/accounts/:id/credits',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getAccountCredits',
        summary: 'Get an account’s credit',
        description:
          'The credit balance per currency (the sum of the entries, less what remains of expired grants) and the ledger entries, newest first ' +
          '(`limit` and `cursor` page the entries).',
        tags: TAGS,
        params: AccountParams,
        querystring: CreditLedgerQuery,
        response: {
          200: Type.Object(
            { ...Envelope(CreditLedgerSchema, 'The ledger.').properties, meta: Type.Optional(PageMeta) },
            { description: 'The ledger.', examples: [creditLedgerExample] },
          ),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
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
        action('grantCredit', 'POST', `/accounts/${accountId}/credits`, 'admin'),
      ]);
      return { ...list, data: { accountId, balances, entries: list.data } };
    },
  );

  app.post(
    '/api/v1/accounts/:id/credits',
    {
      config: {
        public: true,
        scope: 'admin',
        // A grant has no operations of its own: the account's (its credits, invoices) follow.
        createdAt: [{ collection: '/api/v1/accounts', id: '$response.body#/data/accountId' }],
      },
      schema: {
        operationId: 'grantCredit',
        summary: 'Grant credit to an account',
        description:
          'Adds credit in `currency`; it pays the account’s invoices as they are issued (tenant setting ' +
          '`autoApplyCredits`, on by default) or through POST /invoices/{id}/apply-credit. Emits `credit.granted`. ' +
          'Only an account linked to a billing account (`externalId`) holds credit: another is 409 `conflict`.',
        tags: TAGS,
        params: AccountParams,
        body: GrantCreditBody,
        response: {
          201: Envelope(CreditEntrySchema, 'The grant.', creditEntryExample),
          ...errorResponses(404, 409),
        },
      },
    },
    async (request, reply) => {
      const input = { accountId: request.params.id, ...request.body };
      return respond(
        deps,
        request,
        reply,
        async (ctx, key) => {
          await requireAccount(deps, ctx.tenantId, input.accountId);
          return grantCredit(deps, ctx, input, key);
        },
        (entry: CreditEntryApi, ctx: RequestContext): Presented => ({
          status: 201,
          body: envelope(ctx, entry, ledgerActions(entry.accountId)),
        }),
      );
    },
  );

  app.post(
    '/api/v1/invoices/:id/apply-credit',
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'applyCreditToInvoice',
        summary: 'Apply credit to an invoice',
        description:
          'Pays an open invoice from the credit of the account linked to its billing account (`externalId`). ' +
          '409 `no_credit_available` or `invoice_not_open`; 501 when the billing system has no credits. Emits ' +
          '`credit.applied`, and `invoice.paid` when nothing is left to pay.',
        tags: TAGS,
        params: InvoiceParams,
        body: ApplyCreditBody,
        response: {
          200: Envelope(
            CreditApplicationSchema,
            'The application and the invoice after it.',
            creditApplicationExample,
          ),
          ...errorResponses(404, 409, 501, 502),
        },
      },
    },
    async (request, reply) => {
      const input = { invoiceId: request.params.id, amountCents: request.body?.amountCents };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => applyCredit(deps, ctx, input, key),
        (applied: CreditApplication, ctx: RequestContext): Presented => ({
          status: 200,
          body: envelope(
            ctx,
            { application: applied.application, invoice: presentInvoice(applied.invoice) },
            ledgerActions(applied.application.accountId),
          ),
        }),
      );
    },
  );
}
