import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { respond } from '../../../http/operation.js';
import { createWebhook } from '../operations.js';
import { CreatedWebhookSchema, CreateWebhookBody } from '../schemas.js';
import { createdResponse, SIGNING, TAGS } from './shared.js';

export const createWebhookRoute = defineRoute({
  method: 'POST',
  path: '/webhooks',
  operationId: 'createWebhook',
  summary: 'Subscribe a URL to events',
  description:
    'Creates an active subscription delivering the given event types to an HTTPS URL, and returns its ' +
    `signing secret, shown only here. ${SIGNING} Only events emitted after creation are delivered.`,
  tags: TAGS,
  scope: 'commerce',
  body: CreateWebhookBody,
  responses: { 201: Envelope(CreatedWebhookSchema, 'The new subscription, with its secret.') },
  handler: async (request, reply, deps) =>
    respond(deps, request, reply, (ctx, key) => createWebhook(deps, ctx, request.body, key), createdResponse),
});
