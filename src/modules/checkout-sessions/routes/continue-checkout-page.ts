import { Type } from 'typebox';
import { notFound } from '../../../core/errors.js';
import { defineRoute } from '../../../http/declared-route.js';
import { getCheckout } from '../operations.js';

// Where a buyer lands from a session's `continueUrl` (requires_escalation). We run no web
// checkout and no 3-D Secure: the sandbox's escalation stands for a step the buyer would take
// with the seller, so the page says where the session stands and what the agent can do next.

const html = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(id: string, status: string, total: string) {
  const next =
    status === 'requires_escalation'
      ? 'This sandbox checkout asked for your confirmation. There is nothing more to enter here: ' +
        'your agent can complete the checkout again (with the sandbox card’s success_token).'
      : `This checkout is ${status.replaceAll('_', ' ')}.`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Checkout ${html(id)}</title></head><body><main><h1>Checkout</h1><p>${html(next)}</p><p>Total: ${html(total)}</p><p><small>${html(id)}</small></p></main></body></html>`;
}

export const continueCheckoutPageRoute = defineRoute({
  method: 'GET',
  path: '/checkout/:tenantId/:id',
  prefix: '',
  operationId: 'continueCheckoutPage',
  summary: 'The page a checkout session’s continueUrl opens (for the buyer)',
  description:
    'An HTML page for the buyer, without a key: where the session stands and what the agent can do next. 404 ' +
    'for an unknown tenant or session.',
  tags: ['Checkout sessions'],
  scope: null,
  public: false,
  params: Type.Object({ tenantId: Type.String({ format: 'uuid' }), id: Type.String({ format: 'uuid' }) }),
  responses: { 200: Type.String({ description: 'text/html' }) },
  handler: async (request, reply, deps) => {
    const { tenantId, id } = request.params;
    const ctx = { tenantId, keyId: null, requestId: request.id };
    const session = await getCheckout(deps, ctx, id).catch(() => {
      throw notFound('Checkout session');
    });
    const format = new Intl.NumberFormat('en', { style: 'currency', currency: session.currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    const total = format.format(session.totals.total / 10 ** digits);
    return reply.type('text/html; charset=utf-8').send(page(session.id, session.status, total));
  },
});
