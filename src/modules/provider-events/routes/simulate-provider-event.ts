import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { sandboxEvent } from '../sandbox.js';
import { SimulateBody, SimulationSchema } from '../schemas.js';
import { adminActions, tags } from './shared.js';

export const simulateProviderEventRoute = defineRoute({
  method: 'POST',
  path: '/admin/payment-provider/simulate',
  operationId: 'simulateProviderEvent',
  summary: 'Simulate a sandbox provider event',
  description:
    'Acts as the sandbox payment provider: builds a `payment.succeeded` or `payment.failed` event for the ' +
    'session, signs it with the tenant’s secret and delivers it to the tenant’s callback URL through the ' +
    'real route. Returns the event and what the callback answered (its status and body). With an ' +
    'Idempotency-Key the event id is derived from the key, so a retry is acknowledged as a duplicate. 404 ' +
    'when no sandbox provider is configured.',
  tags,
  scope: 'admin',
  body: SimulateBody,
  responses: {
    200: Envelope(SimulationSchema, 'The event sent and the callback’s answer.'),
    ...errorResponses(404),
  },
  handler: async (request, reply, deps) => {
    const ctx = requireCtx(request);
    const header = request.headers['idempotency-key'];
    const sent = await sandboxEvent(
      deps,
      ctx.tenantId,
      request.body,
      typeof header === 'string' ? header : undefined,
    );
    const response = await reply.server.inject({
      method: 'POST',
      url: sent.path,
      headers: sent.headers,
      payload: sent.raw,
    });
    let answer: unknown = response.body;
    try {
      answer = JSON.parse(response.body);
    } catch {
      // Not JSON: returned as text.
    }
    const delivery = { statusCode: response.statusCode, body: answer };
    return envelope(ctx, { event: sent.event, delivery }, adminActions);
  },
});
