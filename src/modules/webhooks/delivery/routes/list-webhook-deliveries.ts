import { Type } from 'typebox';
import { notFound, validationFailed } from '../../../../core/errors.js';
import { NEWEST_FIRST, pageOfRows, pageRequest } from '../../../../core/paging.js';
import { requireCtx } from '../../../../http/auth.js';
import { defineRoute } from '../../../../http/declared-route.js';
import { type ActionSpec, action, envelope, next } from '../../../../http/envelope.js';
import { errorResponses } from '../../../../http/errors.js';
import { PageMeta } from '../../../../http/paging.js';
import { DeliveryListQuery, DeliveryPaginationSchema, DeliverySchema, WebhookParams } from '../../schemas.js';
import { webhookExists } from '../../service.js';
import { listDeliveries } from '../log.js';
import { DEFAULT_PAGE, TAGS } from './delivery-shared.js';

export const listWebhookDeliveriesRoute = defineRoute({
  method: 'GET',
  path: '/webhooks/:id/deliveries',
  operationId: 'listWebhookDeliveries',
  summary: 'List deliveries of a webhook subscription',
  description:
    'Deliveries to this subscription, newest first, one per event: `pending`, `failed` (will retry), ' +
    '`succeeded` or `dead_letter` (gave up after 5 attempts). Pages by `limit` (default 100) with `cursor` ' +
    '(the `next` action carries it) or `offset`; `pagination.total` counts all matching. Replay a dead ' +
    'letter with its `replay` action.',
  tags: TAGS,
  scope: 'read',
  params: WebhookParams,
  query: DeliveryListQuery,
  responses: {
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
  handler: async (request, _reply, deps) => {
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
    const actions: ActionSpec[] = [next('webhook', 'getWebhook', { id })];
    if (page.nextCursor !== null) {
      const args = { limit, cursor: page.nextCursor, ...(status ? { status } : {}) };
      const query = new URLSearchParams({ ...args, limit: String(limit) });
      // The next page repeats this request (the number `limit` as sent): an action by path.
      actions.push(action('next', 'GET', `/webhooks/${id}/deliveries?${query}`, 'read', args));
    }
    return {
      ...envelope(ctx, page.items, actions),
      pagination: { total, limit, offset },
      meta: { limit, nextCursor: page.nextCursor },
    };
  },
});
