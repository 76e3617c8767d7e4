import { Type } from 'typebox';
import { PageQueryFields } from '../../core/paging.js';

const Count = (description: string) => Type.Integer({ minimum: 0, description });

const Amounts = Type.Array(
  Type.Object({
    currency: Type.String({ description: 'ISO 4217 code, e.g. `USD`.' }),
    amountCents: Type.Integer({ description: 'The sum in minor units.' }),
  }),
  { description: 'The sum per currency (only currencies with records in the window).' },
);

const MoneyWindow = Type.Object({ count: Count('How many in the window.'), amounts: Amounts });

const MoneyWindows = (what: string) =>
  Type.Object(
    { last24Hours: MoneyWindow, last30Days: MoneyWindow },
    { description: `${what}: count and amounts of the last 24 hours and of the last 30 days.` },
  );

const RevenueDay = Type.Object({
  date: Type.String({ format: 'date', description: 'The UTC day.' }),
  paymentsCents: Type.Integer({ description: 'Successful payments created that day.' }),
  refundsCents: Type.Integer({ description: 'Succeeded refunds made that day.' }),
  netCents: Type.Integer({ description: '`paymentsCents - refundsCents`.' }),
});

export const OverviewQuery = Type.Object(
  {
    now: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'The moment the windows end at (default: the server clock). For a report as of another time.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const OverviewSchema = Type.Object({
  asOf: Type.String({ format: 'date-time', description: 'The moment the windows end at.' }),
  orders: MoneyWindows('Orders placed (amount: their totals)'),
  payments: MoneyWindows('Successful payments (by creation time)'),
  refunds: MoneyWindows('Succeeded refunds'),
  revenue: Type.Array(
    Type.Object({
      currency: Type.String(),
      netCents: Type.Integer({ description: 'Net revenue over the 30 days.' }),
      days: Type.Array(RevenueDay, {
        description: 'The 30 UTC days ending today, oldest first, every day listed.',
      }),
    }),
    { description: 'Revenue per day for the last 30 days, one series per currency.' },
  ),
  checkoutSessions: Type.Array(
    Type.Object({ status: Type.String(), count: Count('Sessions in this status.') }),
    {
      description:
        'Checkout sessions (ACP and UCP) by status as they read now (expired open ones as `canceled`).',
    },
  ),
  webhooks: Type.Object(
    {
      endpoints: Count('Webhook endpoints.'),
      activeEndpoints: Count('Endpoints enabled.'),
      failingEndpoints: Type.Array(
        Type.Object({
          id: Type.String({ format: 'uuid' }),
          url: Type.String(),
          isActive: Type.Boolean(),
          failingDeliveries: Count('Deliveries being retried after a failure.'),
          deadLetters: Count('Deliveries that gave up (replay them).'),
        }),
        { description: 'Endpoints with failing or dead-lettered deliveries, the worst first (at most 10).' },
      ),
      pendingDeliveries: Count('Deliveries waiting for their first attempt.'),
      deadLetters: Count('Dead-lettered deliveries of all endpoints.'),
    },
    { description: 'Webhook health.' },
  ),
  openIntents: Type.Object(
    {
      pending: Count('Billing intents still running.'),
      attention: Count('Billing intents waiting for an operator.'),
    },
    { description: 'Billing intents not closed (`GET /admin/intents?status=...`).' },
  ),
});

export const RequestErrorQuery = Type.Object(
  {
    ...PageQueryFields,
    status: Type.Optional(
      Type.Integer({
        minimum: 400,
        maximum: 599,
        description: 'Only responses with at least this status, e.g. `500`.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RequestErrorSchema = Type.Object({
  method: Type.String({ description: 'HTTP method.' }),
  route: Type.Union([Type.String(), Type.Null()], {
    description: 'The route pattern, e.g. `/api/v1/orders/:id`.',
  }),
  operationId: Type.Union([Type.String(), Type.Null()], { description: 'The operation, e.g. `getOrder`.' }),
  status: Type.Integer({ description: 'HTTP status answered.' }),
  code: Type.Union([Type.String(), Type.Null()], { description: 'Our error code, e.g. `not_found`.' }),
  message: Type.Union([Type.String(), Type.Null()], { description: 'The error message sent.' }),
  requestId: Type.String({ description: 'The X-Request-Id, to find the request log line.' }),
  at: Type.String({ format: 'date-time' }),
});
