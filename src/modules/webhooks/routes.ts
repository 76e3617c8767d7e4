import { Type } from 'typebox';
import { LIST_PAGING, WEBHOOK_DELIVERIES } from '../../core/agent-guide.js';
import { notFound } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import { EVENT_TYPE_NAMES, EVENT_TYPES } from '../../events/event-types.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { type Presented, respond } from '../../http/operation.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../http/paging.js';
import type { TypedApp } from '../../http/types.js';
import { registerDeliveryRoutes } from './delivery/delivery-routes.js';
import {
  type CreatedWebhook,
  createWebhook,
  deleteWebhook,
  type RotatedSecret,
  rotateWebhookSecret,
  updateWebhook,
} from './operations.js';
import {
  CreatedWebhookSchema,
  CreateWebhookBody,
  EventTypeSchema,
  RotatedSecretSchema,
  SECRET_OVERLAP_HOURS,
  UpdateWebhookBody,
  WebhookParams,
  WebhookSchema,
} from './schemas.js';
import { getWebhook, listWebhooks, type WebhookApi } from './service.js';

const TAGS = ['Webhooks'];
const BASE = '/api/v1/webhooks';

const EVENT_TYPE_LIST = EVENT_TYPE_NAMES.map((type) => ({ type, description: EVENT_TYPES[type] }));

function webhookActions(id: string): ActionSpec[] {
  const path = `/webhooks/${id}`;
  return [
    action('self', 'GET', path, 'read'),
    action('update', 'PATCH', path, 'commerce'),
    action('delete', 'DELETE', path, 'commerce'),
    action('rotateSecret', 'POST', `${path}/rotate-secret`, 'commerce'),
    action('deliveries', 'GET', `${path}/deliveries`, 'read'),
    action('test', 'POST', `${path}/test`, 'commerce'),
    action('list', 'GET', '/webhooks', 'read'),
  ];
}

const createdResponse = ({ webhook, secret }: CreatedWebhook, ctx: RequestContext): Presented => ({
  status: 201,
  body: envelope(ctx, { ...webhook, secret }, webhookActions(webhook.id)),
});
const webhookResponse = (webhook: WebhookApi, ctx: RequestContext): Presented => ({
  status: 200,
  body: envelope(ctx, webhook, webhookActions(webhook.id)),
});
const rotatedResponse = (rotated: RotatedSecret, ctx: RequestContext): Presented => ({
  status: 200,
  body: envelope(
    ctx,
    {
      id: rotated.id,
      secret: rotated.secret,
      overlapHours: SECRET_OVERLAP_HOURS,
      previousSecretExpiresAt: iso(rotated.previousSecretExpiresAt),
    },
    webhookActions(rotated.id),
  ),
});
const noContent = (): Presented => ({ status: 204, body: undefined });

const SIGNING = WEBHOOK_DELIVERIES.text;

export function registerWebhookRoutes(app: TypedApp, deps: Deps) {
  registerDeliveryRoutes(app, deps);

  // Before `/webhooks/:id`, so `event-types` is never read as an id.
  app.get(
    `${BASE}/event-types`,
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'listWebhookEventTypes',
        summary: 'List webhook event types',
        description:
          'Every event type a webhook subscription can name in `events`, with when it is emitted (as ' +
          '`capabilities.eventTypes` in GET /manifest). `*` (not listed) means all. ' +
          LIST_PAGING.text,
        tags: TAGS,
        querystring: PageQuery,
        response: { 200: ListEnvelope(EventTypeSchema, 'The event types.') },
      },
    },
    async (request) =>
      inMemoryList(
        deps.keyRing,
        requireCtx(request),
        request,
        'webhook-event-types',
        [...EVENT_TYPE_LIST],
        [action('createWebhook', 'POST', '/webhooks', 'commerce')],
        (type) => type.type,
      ),
  );

  app.post(
    BASE,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'createWebhook',
        summary: 'Subscribe a URL to events',
        description:
          'Creates an active subscription delivering the given event types to an HTTPS URL, and returns its ' +
          `signing secret, shown only here. ${SIGNING} Only events emitted after creation are delivered.`,
        tags: TAGS,
        body: CreateWebhookBody,
        response: { 201: Envelope(CreatedWebhookSchema, 'The new subscription, with its secret.') },
      },
    },
    async (request, reply) =>
      respond(
        deps,
        request,
        reply,
        (ctx, key) => createWebhook(deps, ctx, request.body, key),
        createdResponse,
      ),
  );

  app.get(
    BASE,
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'listWebhooks',
        summary: 'List webhook subscriptions',
        description:
          'Every webhook subscription of this tenant, active or not, newest first, with delivery stats ' +
          '(`recentFailureCount` over 24 h), never the secret. ' +
          LIST_PAGING.text,
        tags: TAGS,
        querystring: PageQuery,
        response: { 200: ListEnvelope(WebhookSchema, 'The subscriptions.') },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const items = await listWebhooks(deps.db, ctx.tenantId, deps.clock.now());
      return inMemoryList(deps.keyRing, ctx, request, 'webhooks', items, [
        action('create', 'POST', '/webhooks', 'commerce'),
      ]);
    },
  );

  app.get(
    `${BASE}/:id`,
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getWebhook',
        summary: 'Get a webhook subscription',
        description: 'One webhook subscription with its delivery stats, without the secret.',
        tags: TAGS,
        params: WebhookParams,
        response: { 200: Envelope(WebhookSchema, 'The subscription.'), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const webhook = await getWebhook(deps.db, ctx.tenantId, request.params.id, deps.clock.now());
      if (!webhook) throw notFound('Webhook');
      return envelope(ctx, webhook, webhookActions(webhook.id));
    },
  );

  app.patch(
    `${BASE}/:id`,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'updateWebhook',
        summary: 'Update a webhook subscription',
        description:
          'Changes the given fields (at least one). A new `url` is checked as on creation. Events missed while ' +
          'inactive or not subscribed are never redelivered. Audit `webhook.update` (before/after diff).',
        tags: TAGS,
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: Envelope(WebhookSchema, 'The updated subscription.'), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const input = { webhookId: request.params.id, changes: request.body };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => updateWebhook(deps, ctx, input, key),
        webhookResponse,
      );
    },
  );

  app.delete(
    `${BASE}/:id`,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook subscription',
        description:
          'Deletes the subscription with its delivery history; pending retries are cancelled. To pause ' +
          'instead, set `isActive: false`. 204 with no body.',
        tags: TAGS,
        params: WebhookParams,
        response: { 204: Type.Null({ description: 'Deleted; no body.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const input = { webhookId: request.params.id };
      return respond(deps, request, reply, (ctx, key) => deleteWebhook(deps, ctx, input, key), noContent);
    },
  );

  app.post(
    `${BASE}/:id/rotate-secret`,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate a webhook signing secret',
        description:
          'Issues a new signing secret, shown only here. For 24 hours (`overlapHours`, until ' +
          '`previousSecretExpiresAt`) deliveries are signed by both secrets, comma-separated in ' +
          '`X-Webhook-Signature`; then by the new one only. Rotating again within the window retires the older ' +
          'secret at once. No body.',
        tags: TAGS,
        params: WebhookParams,
        response: { 200: Envelope(RotatedSecretSchema, 'The new secret.'), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const input = { webhookId: request.params.id };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => rotateWebhookSecret(deps, ctx, input, key),
        rotatedResponse,
      );
    },
  );
}
