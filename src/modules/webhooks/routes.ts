import { Type } from 'typebox';
import { notFound } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import { EVENT_TYPE_NAMES, EVENT_TYPES } from '../../events/event-types.js';
import { requireCtx } from '../../http/auth.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { runMutation } from '../../http/mutation.js';
import type { TypedApp } from '../../http/types.js';
import { diffChanges } from '../../unit-of-work/index.js';
import { registerDeliveryRoutes } from './delivery-routes.js';
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
import { webhookKey } from './secrets.js';
import {
  assertKnownEvents,
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
} from './service.js';
import { assertWebhookUrl } from './url-safety.js';

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

const SIGNING =
  'Each delivery is a POST of `{ id, event, timestamp, tenantId, data }` signed in `X-Webhook-Signature: ' +
  'sha256=<hex HMAC-SHA256 of the raw body keyed by the secret>` and in the Standard Webhooks headers ' +
  '(`webhook-id`, `webhook-timestamp`, `webhook-signature`), so their libraries verify it as well. A 2xx ' +
  'within 10 s is success; otherwise it is retried (5 attempts, 2/4/8/16 s apart) and then dead-lettered.';

export function registerWebhookRoutes(app: TypedApp, deps: Deps) {
  const allowPrivate = () => deps.config.webhookAllowPrivateTargets;
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
          'Every event type a webhook subscription can name in `events`, with when it is emitted: the same ' +
          'list as `capabilities.eventTypes` in GET /manifest. `*` (not listed) subscribes to all of them.',
        tags: TAGS,
        response: { 200: Envelope(Type.Array(EventTypeSchema), 'The event types.') },
      },
    },
    async (request) =>
      envelope(requireCtx(request), EVENT_TYPE_LIST, [
        action('createWebhook', 'POST', '/webhooks', 'commerce'),
      ]),
  );

  app.post(
    BASE,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'createWebhook',
        summary: 'Subscribe a URL to events',
        description:
          'Creates an active subscription delivering the given event types (or `*` for all) to an HTTPS URL, and ' +
          `returns its signing secret: shown only in this response. ${SIGNING} Only events emitted after ` +
          'creation are delivered. 400 (validation_failed, naming `url` or `events`) when the URL is not ' +
          'HTTPS (rule `https`), has credentials, or resolves to a non-public address (rule `public_target`), ' +
          'or when `events` is empty, has duplicates or names unknown types (listed in the message).',
        tags: TAGS,
        body: CreateWebhookBody,
        response: { 201: Envelope(CreatedWebhookSchema, 'The new subscription, with its secret.') },
      },
    },
    async (request, reply) => {
      assertKnownEvents(request.body.events);
      await assertWebhookUrl(request.body.url, allowPrivate());
      const key = webhookKey(deps.config);
      return runMutation(deps, request, reply, async (m) => {
        const { webhook, secret } = await createWebhook(m.tx, m.ctx.tenantId, request.body, key, m.now);
        await m.audit({
          action: 'webhook.create',
          resourceType: 'webhook',
          resourceId: webhook.id,
          details: { url: webhook.url, events: webhook.events },
        });
        return { status: 201, body: envelope(m.ctx, { ...webhook, secret }, webhookActions(webhook.id)) };
      });
    },
  );

  app.get(
    BASE,
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'listWebhooks',
        summary: 'List webhook subscriptions',
        description:
          'Every webhook subscription of this tenant, active and disabled, newest first, each with delivery ' +
          'stats (`lastDeliveryAt`, `lastDeliveryStatus`, `recentFailureCount` over 24 h). Secrets are never shown.',
        tags: TAGS,
        response: { 200: Envelope(Type.Array(WebhookSchema), 'The subscriptions.') },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const items = await listWebhooks(deps.db, ctx.tenantId, deps.clock.now());
      return envelope(ctx, items, [action('create', 'POST', '/webhooks', 'commerce')]);
    },
  );

  app.get(
    `${BASE}/:id`,
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getWebhook',
        summary: 'Get a webhook subscription',
        description:
          'One subscription of this tenant with its delivery stats, without the secret; 404 when the id is ' +
          'not one of this tenant’s.',
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
          'Changes the given fields (at least one of `url`, `events`, `isActive`); omitted ones stay. A new ' +
          '`url` is checked like on creation. `isActive: false` stops deliveries until set back to true. ' +
          'Changing `events` (or re-activating) never redelivers events missed meanwhile. The audit entry ' +
          '`webhook.update` holds a before/after diff of the changed fields. 404 when not this tenant’s.',
        tags: TAGS,
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: Envelope(WebhookSchema, 'The updated subscription.'), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      if (request.body.events !== undefined) assertKnownEvents(request.body.events);
      if (request.body.url !== undefined) await assertWebhookUrl(request.body.url, allowPrivate());
      return runMutation(deps, request, reply, async (m) => {
        const result = await updateWebhook(m.tx, m.ctx.tenantId, request.params.id, request.body, m.now);
        if (!result) throw notFound('Webhook');
        await m.audit({
          action: 'webhook.update',
          resourceType: 'webhook',
          resourceId: result.webhook.id,
          details: diffChanges(result.before, result.after),
        });
        return { status: 200, body: envelope(m.ctx, result.webhook, webhookActions(result.webhook.id)) };
      });
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
          'Deletes the subscription permanently with its delivery history; pending retries are cancelled. ' +
          'To pause deliveries instead, PATCH `isActive: false`. 204 with no body; 404 when not this tenant’s.',
        tags: TAGS,
        params: WebhookParams,
        response: { 204: Type.Null({ description: 'Deleted; no body.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) =>
      runMutation(deps, request, reply, async (m) => {
        const removed = await deleteWebhook(m.tx, m.ctx.tenantId, request.params.id);
        if (!removed) throw notFound('Webhook');
        await m.audit({
          action: 'webhook.delete',
          resourceType: 'webhook',
          resourceId: request.params.id,
          details: { url: removed.url, events: removed.events },
        });
        return { status: 204, body: undefined };
      }),
  );

  app.post(
    `${BASE}/:id/rotate-secret`,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate a webhook signing secret',
        description:
          'Issues a new signing secret, shown only in this response. For the next 24 hours ' +
          '(`overlapHours`, until `previousSecretExpiresAt`) deliveries carry signatures by both the new and ' +
          'the previous secret, comma-separated in `X-Webhook-Signature`; then only the new one signs. ' +
          'Rotating again within the window retires the older previous secret at once. No body. 404 when not ' +
          'this tenant’s.',
        tags: TAGS,
        params: WebhookParams,
        response: { 200: Envelope(RotatedSecretSchema, 'The new secret.'), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const key = webhookKey(deps.config);
      return runMutation(deps, request, reply, async (m) => {
        const rotated = await rotateWebhookSecret(m.tx, m.ctx.tenantId, request.params.id, key, m.now);
        if (!rotated) throw notFound('Webhook');
        const previousSecretExpiresAt = iso(rotated.previousSecretExpiresAt);
        await m.audit({
          action: 'webhook.rotate_secret',
          resourceType: 'webhook',
          resourceId: rotated.id,
          details: { previousSecretExpiresAt },
        });
        return {
          status: 200,
          body: envelope(
            m.ctx,
            {
              id: rotated.id,
              secret: rotated.secret,
              overlapHours: SECRET_OVERLAP_HOURS,
              previousSecretExpiresAt,
            },
            webhookActions(rotated.id),
          ),
        };
      });
    },
  );
}
