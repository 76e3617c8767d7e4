import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { WebhookParams, WebhookSchema } from '../schemas.js';
import { getWebhook } from '../service.js';
import { TAGS, webhookActions } from './shared.js';

export const getWebhookRoute = defineRoute({
  method: 'GET',
  path: '/webhooks/:id',
  operationId: 'getWebhook',
  summary: 'Get a webhook subscription',
  description: 'One webhook subscription with its delivery stats, without the secret.',
  tags: TAGS,
  scope: 'read',
  params: WebhookParams,
  responses: { 200: Envelope(WebhookSchema, 'The subscription.'), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const webhook = await getWebhook(deps.db, ctx.tenantId, request.params.id, deps.clock.now());
    if (!webhook) throw notFound('Webhook');
    return envelope(ctx, webhook, webhookActions(webhook.id));
  },
});
