import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope, next } from '../../../http/envelope.js';
import { OverviewQuery, OverviewSchema } from '../schemas.js';
import { readOverview } from '../service.js';
import { tags } from './shared.js';

const day = (date: string, paymentsCents: number, refundsCents: number) => ({
  date,
  paymentsCents,
  refundsCents,
  netCents: paymentsCents - refundsCents,
});

const example = {
  data: {
    asOf: '2026-03-30T12:00:00.000Z',
    orders: {
      last24Hours: { count: 3, amounts: [{ currency: 'USD', amountCents: 14700 }] },
      last30Days: { count: 41, amounts: [{ currency: 'USD', amountCents: 231500 }] },
    },
    payments: {
      last24Hours: { count: 2, amounts: [{ currency: 'USD', amountCents: 9800 }] },
      last30Days: { count: 38, amounts: [{ currency: 'USD', amountCents: 219000 }] },
    },
    refunds: {
      last24Hours: { count: 0, amounts: [] },
      last30Days: { count: 1, amounts: [{ currency: 'USD', amountCents: 4900 }] },
    },
    revenue: [
      { currency: 'USD', netCents: 4900, days: [day('2026-03-29', 0, 0), day('2026-03-30', 9800, 4900)] },
    ],
    checkoutSessions: [
      { status: 'completed', count: 12 },
      { status: 'ready', count: 2 },
    ],
    webhooks: {
      endpoints: 2,
      activeEndpoints: 2,
      failingEndpoints: [
        {
          id: '0195f3c2-7a10-7c4e-9a55-3b1f7c2d9e01',
          url: 'https://example.com/hooks',
          isActive: true,
          failingDeliveries: 1,
          deadLetters: 2,
        },
      ],
      pendingDeliveries: 0,
      deadLetters: 2,
    },
    openIntents: { pending: 0, attention: 1 },
  },
  nextActions: [],
};

export const getOverviewRoute = defineRoute({
  method: 'GET',
  path: '/admin/overview',
  operationId: 'getOverview',
  summary: 'Get the tenant overview',
  description:
    'The tenant at a glance: orders, payments and refunds of the last 24 h and 30 days, revenue per day (30 ' +
    'days), checkout sessions by status, failing webhook endpoints and dead letters, open intents. `now` ends ' +
    'the windows.',
  tags,
  scope: 'admin',
  query: OverviewQuery,
  responses: { 200: Envelope(OverviewSchema, 'The overview.', example) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const now = request.query.now ? new Date(request.query.now) : deps.clock.now();
    const overview = await readOverview(deps.db, ctx.tenantId, now);
    return envelope(ctx, overview, [
      next('orders', 'listOrders', { limit: 20 }),
      next('webhooks', 'listWebhooks'),
      next('intents', 'listIntents', { status: 'attention' }),
    ]);
  },
});
