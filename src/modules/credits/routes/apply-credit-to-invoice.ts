import { presentInvoice } from '../../../billing/index.js';
import type { RequestContext } from '../../../http/context.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { type Presented, respond } from '../../../http/operation.js';
import { InvoiceParams } from '../../payments/index.js';
import { applyCredit, type CreditApplication } from '../operations.js';
import { ApplyCreditBody, CreditApplicationSchema, creditApplicationExample } from '../schemas.js';
import { ledgerActions, TAGS } from './shared.js';

export const applyCreditToInvoiceRoute = defineRoute({
  method: 'POST',
  path: '/invoices/:id/apply-credit',
  operationId: 'applyCreditToInvoice',
  summary: 'Apply credit to an invoice',
  description:
    'Pays an open invoice from the credit of the account linked to its billing account (`externalId`). ' +
    '409 `no_credit_available` or `invoice_not_open`; 501 when the billing system has no credits. Emits ' +
    '`credit.applied`, and `invoice.paid` when nothing is left to pay.',
  tags: TAGS,
  scope: 'commerce',
  params: InvoiceParams,
  body: ApplyCreditBody,
  responses: {
    200: Envelope(
      CreditApplicationSchema,
      'The application and the invoice after it.',
      creditApplicationExample,
    ),
    ...errorResponses(404, 409, 501, 502),
  },
  handler: async (request, reply, deps) => {
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
});
