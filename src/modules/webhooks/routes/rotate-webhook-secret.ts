import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { rotateWebhookSecret } from '../operations.js';
import { RotatedSecretSchema, WebhookParams } from '../schemas.js';
import { rotatedResponse, TAGS } from './shared.js';

export const rotateWebhookSecretRoute = defineRoute({
  method: 'POST',
  path: '/webhooks/:id/rotate-secret',
  operationId: 'rotateWebhookSecret',
  summary: 'Rotate a webhook signing secret',
  description:
    'Issues a new signing secret, shown only here. For 24 hours (`overlapHours`, until ' +
    '`previousSecretExpiresAt`) deliveries are signed by both secrets, comma-separated in ' +
    '`X-Webhook-Signature`; then by the new one only. Rotating again within the window retires the older ' +
    'secret at once. No body.',
  tags: TAGS,
  scope: 'commerce',
  params: WebhookParams,
  responses: { 200: Envelope(RotatedSecretSchema, 'The new secret.'), ...errorResponses(404) },
  handler: async (request, reply, deps) => {
    const input = { webhookId: request.params.id };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => rotateWebhookSecret(deps, ctx, input, key),
      rotatedResponse,
    );
  },
});
