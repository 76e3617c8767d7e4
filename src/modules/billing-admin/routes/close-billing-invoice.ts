import { InvoiceSchema } from '../../../billing/index.js';
import { type DeclaredRoute, defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { closeBillingInvoice } from '../operations.js';
import { InvoiceIdParams } from '../schemas.js';
import { invoiceResponse, tags } from './shared.js';

/** Voiding and writing off an open built-in invoice: one shape, two end states. */
const closeInvoiceRoute = (verb: 'void' | 'mark-uncollectible', status: 'void' | 'uncollectible') =>
  defineRoute({
    method: 'POST',
    path: `/admin/billing/invoices/:invoiceId/${verb}`,
    operationId: verb === 'void' ? 'voidBillingInvoice' : 'markBillingInvoiceUncollectible',
    summary: verb === 'void' ? 'Void an invoice' : 'Write off an invoice',
    description:
      `Moves an open built-in invoice to \`${status}\` (already \`${status}\`: returned unchanged); 409 when it is closed otherwise, 404 when unknown.` +
      (verb === 'void'
        ? ' A partly paid invoice (payments or credit) is not voided: 409 `conflict` naming the amount paid; refund the payments first, or write it off.'
        : ''),
    tags,
    scope: 'admin',
    params: InvoiceIdParams,
    responses: { 200: Envelope(InvoiceSchema, 'The invoice.'), ...errorResponses(404, 409, 502) },
    handler: async (request, reply, deps) => {
      const input = { invoiceId: request.params.invoiceId, status };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => closeBillingInvoice(deps, ctx, input, key),
        invoiceResponse(200),
      );
    },
  });

export const closeInvoiceRoutes: DeclaredRoute[] = [
  closeInvoiceRoute('void', 'void'),
  closeInvoiceRoute('mark-uncollectible', 'uncollectible'),
];
