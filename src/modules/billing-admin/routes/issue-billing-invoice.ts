import { InvoiceSchema } from '../../../billing/index.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { issueBillingInvoice } from '../operations.js';
import { AccountIdParams, IssueInvoiceBody } from '../schemas.js';
import { invoiceResponse, tags } from './shared.js';

export const issueBillingInvoiceRoute = defineRoute({
  method: 'POST',
  path: '/admin/billing/accounts/:accountId/invoices',
  operationId: 'issueBillingInvoice',
  summary: 'Issue an invoice',
  description:
    'Issues an open invoice on a built-in billing account in the account’s currency, from lines of quantity x ' +
    'unit amount (minor units). Emits `invoice.created`. With an Idempotency-Key, a retry never issues twice.',
  tags,
  scope: 'admin',
  createdAt: [{ collection: '/api/v1/invoices' }, { collection: '/api/v1/admin/billing/invoices' }],
  params: AccountIdParams,
  body: IssueInvoiceBody,
  responses: { 201: Envelope(InvoiceSchema, 'The issued invoice.'), ...errorResponses(404, 502) },
  handler: async (request, reply, deps) => {
    const input = {
      accountId: request.params.accountId,
      lines: request.body.lines.map((l) => ({
        description: l.description,
        quantity: l.quantity ?? 1,
        unitAmountCents: l.unitAmountCents,
      })),
      dueDate: request.body.dueDate,
    };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => issueBillingInvoice(deps, ctx, input, key),
      invoiceResponse(201),
    );
  },
});
