import { Type } from 'typebox';
import { notFound, validationFailed } from '../../../core/errors.js';
import { NEWEST_FIRST, pageOfRows, pageRequest } from '../../../core/paging.js';
import { requireCtx } from '../../../http/auth.js';
import type { RequestContext } from '../../../http/context.js';
import type { Deps } from '../../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { type Presented, respond } from '../../../http/operation.js';
import { PageMeta } from '../../../http/paging.js';
import type { TypedApp } from '../../../http/types.js';
import { replayWebhookDelivery, sendTestEvent } from '../operations.js';
import {
  DeliveryDetailSchema,
  DeliveryListQuery,
  DeliveryPaginationSchema,
  DeliveryParams,
  DeliverySchema,
  WebhookParams,
} from '../schemas.js';
import { webhookExists } from '../service.js';
import { type DeliveryApi, getDelivery, listDeliveries } from './log.js';

const TAGS = ['Webhooks'];
const BASE = '/api/v1/webhooks/:id';
const DEFAULT_PAGE = 100;

function deliveryActions(subscriptionId: string, deliveryId: string): ActionSpec[] {
  const path = `/webhooks/${subscriptionId}/deliveries/${deliveryId}`;
  return [
    action('self', 'GET', path, 'read'),
    action('replay', 'POST', `${path}/replay`, 'commerce'),
    action('deliveries', 'GET', `/webhooks/${subscriptionId}/deliveries`, 'read'),
    action('webhook', 'GET', `/webhooks/${subscriptionId}`, 'read'),
  ];
}

/** A delivery queued (202), with its links. */
const queuedResponse = (delivery: DeliveryApi, ctx: RequestContext): Presented => ({
  status: 202,
  body: envelope(ctx, delivery, deliveryActions(delivery.subscriptionId, delivery.id)),
});

/** Delivery history, replay and test sends of one webhook subscription. */
export function registerDeliveryRoutes(app: TypedApp, deps: Deps) {
  app.get(
    `${BASE}/deliveries`,
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'List deliveries of a webhook subscription',
        description:
          'Deliveries to this subscription, newest first, one per event: `pending`, `failed` (will retry), ' +
          '`succeeded` or `dead_letter` (gave up after 5 attempts). Pages by `limit` (default 100) with `cursor` ' +
          '(the `next` action carries it) or `offset`; `pagination.total` counts all matching. Replay a dead ' +
          'letter with its `replay` action.',
        tags: TAGS,
        params: WebhookParams,
        querystring: DeliveryListQuery,
        response: {
          200: Type.Object(
            {
              data: Type.Array(DeliverySchema),
              nextActions: Type.Array(Type.Ref('NextAction')),
              pagination: DeliveryPaginationSchema,
              meta: PageMeta,
            },
            { description: 'One page of deliveries, with the count of all matching.' },
          ),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const { id } = request.params;
      if (!(await webhookExists(deps.db, ctx.tenantId, id))) throw notFound('Webhook');
      const { status, cursor } = request.query;
      const limit = request.query.limit ?? DEFAULT_PAGE;
      const offset = request.query.offset ?? 0;
      if (cursor !== undefined && offset)
        throw validationFailed('query.offset', 'cursor', 'query.offset cannot be combined with query.cursor');
      const where = { tenantId: ctx.tenantId, list: `webhook-deliveries:${id}`, keys: deps.keyRing };
      const after = pageRequest(where, { limit, cursor }, NEWEST_FIRST)?.after ?? undefined;
      const { items, total } = await listDeliveries(deps.db, ctx.tenantId, id, {
        status,
        limit,
        offset,
        after,
      });
      const page = pageOfRows(items, { limit, after: null }, (i) => [i.createdAt, i.id], where);
      const actions = [action('webhook', 'GET', `/webhooks/${id}`, 'read')];
      if (page.nextCursor !== null) {
        const args = { limit, cursor: page.nextCursor, ...(status ? { status } : {}) };
        const query = new URLSearchParams({ ...args, limit: String(limit) });
        actions.push(action('next', 'GET', `/webhooks/${id}/deliveries?${query}`, 'read', args));
      }
      return {
        ...envelope(ctx, page.items, actions),
        pagination: { total, limit, offset },
        meta: { limit, nextCursor: page.nextCursor },
      };
    },
  );

  app.get(
    `${BASE}/deliveries/:deliveryId`,
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getWebhookDelivery',
        summary: 'Get a webhook delivery with its attempts',
        description:
          'One delivery: its status and schedule, the event body as sent, and every attempt (time, response ' +
          'status, duration, the first 1,024 characters of the response body, error).',
        tags: TAGS,
        params: DeliveryParams,
        response: { 200: Envelope(DeliveryDetailSchema, 'The delivery.'), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const { id, deliveryId } = request.params;
      const delivery = await getDelivery(deps.db, ctx.tenantId, id, deliveryId);
      if (!delivery) throw notFound('Delivery');
      return envelope(ctx, delivery, deliveryActions(id, deliveryId));
    },
  );

  app.post(
    `${BASE}/deliveries/:deliveryId/replay`,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'replayWebhookDelivery',
        summary: 'Replay a webhook delivery',
        description:
          'Re-enqueues the delivery (typically a `dead_letter`) for 5 fresh attempts: 202 with the delivery, now ' +
          '`pending`. Same event and id, so receivers de-duplicating by id see a repeat; `webhook-timestamp` is ' +
          'the new attempt’s. Waits while the subscription is inactive. No body.',
        tags: TAGS,
        params: DeliveryParams,
        response: { 202: Envelope(DeliverySchema, 'Re-enqueued.'), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const input = { webhookId: request.params.id, deliveryId: request.params.deliveryId };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => replayWebhookDelivery(deps, ctx, input, key),
        queuedResponse,
      );
    },
  );

  app.post(
    `${BASE}/test`,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'testWebhook',
        summary: 'Send a test event to a webhook subscription',
        description:
          'Queues a `webhook.test` event for this subscription only (whatever its `events`), signed and retried ' +
          'like any delivery: 202 with the delivery (its `self` action shows the attempts). Waits while the ' +
          'subscription is inactive. No body.',
        tags: TAGS,
        params: WebhookParams,
        response: { 202: Envelope(DeliverySchema, 'The queued test delivery.'), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const input = { webhookId: request.params.id };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => sendTestEvent(deps, ctx, input, key),
        queuedResponse,
      );
    },
  );
}
