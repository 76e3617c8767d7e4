import { Type } from 'typebox';
import { WEBHOOK_EVENTS, WEBHOOK_TARGETS } from '../../core/agent-guide.js';
import { PageQueryFields } from '../../core/paging.js';
import { StringEnum } from '../../core/schema.js';
import { EVENT_TYPE_NAMES } from '../../events/event-types.js';
import { DELIVERY_STATUSES, SUBSCRIPTION_FORMATS } from './tables.js';
import { WEBHOOK_URL_MAX_LENGTH } from './url-safety.js';

const Timestamp = Type.String({ format: 'date-time' });

export const WEBHOOK_EVENTS_MAX = 50;
export const SECRET_OVERLAP_HOURS = 24;

const Url = Type.String({
  minLength: 1,
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  description: WEBHOOK_TARGETS.text,
});

/** `*` or a registered event type: the one list (`events/event-types.ts`) the server knows. */
export const WEBHOOK_EVENT_CHOICES = ['*', ...EVENT_TYPE_NAMES] as const;

const Events = Type.Array(StringEnum(WEBHOOK_EVENT_CHOICES), {
  minItems: 1,
  maxItems: WEBHOOK_EVENTS_MAX,
  uniqueItems: true,
  description: WEBHOOK_EVENTS.text,
});

const SecretField = Type.String({
  pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
  description:
    'The signing secret (`whsec_` + base64 of 32 random bytes). Shown only now: store it to verify ' +
    'deliveries, either the `X-Webhook-Signature` HMAC-SHA256 keyed by this whole string, or the Standard ' +
    'Webhooks `webhook-signature` with any Standard Webhooks library. It cannot be read again; rotate it ' +
    'to get a new one.',
});

/** The full story, in the subscription as read (response schemas are not in the MCP listing). */
const FORMAT_TEXT =
  "`native` (default): our events, as documented for webhooks. `acp`: the Agentic Commerce Protocol's " +
  'order webhooks instead, for orders made by an agentic checkout session only: `order.created` is sent ' +
  'as `{"type": "order_create", "data": <ACP Order>}` and `order.updated`, `order.paid` and `order.refunded` ' +
  'as `order_update` (events of the list that are none of these are not sent), with the order as it is at ' +
  'sending (line items, fulfillment, refund and credit adjustments, totals; minor units), signed ' +
  '`Merchant-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by the secret>`.';

const Format = StringEnum(SUBSCRIPTION_FORMATS, { description: FORMAT_TEXT });
const FormatInput = StringEnum(SUBSCRIPTION_FORMATS, {
  description: 'Default `native`. `acp`: ACP order webhooks of checkout orders, not our events.',
});

const stats = {
  lastDeliveryAt: Type.Union([Timestamp, Type.Null()], {
    description: 'When a delivery to this subscription was last attempted; null before the first attempt.',
  }),
  recentFailureCount: Type.Integer({
    minimum: 0,
    description: 'Failed delivery attempts (network error or non-2xx response) in the last 24 hours.',
  }),
  lastDeliveryStatus: Type.Union([StringEnum(DELIVERY_STATUSES), Type.Null()], {
    description:
      'Status of the most recently attempted delivery (`pending` while retries remain, `succeeded`, ' +
      '`failed`, `dead_letter`); null before the first attempt.',
  }),
};

const subscriptionFields = {
  id: Type.String({ format: 'uuid', description: 'Id of the subscription (UUID).' }),
  url: Type.String({ description: 'The HTTPS endpoint deliveries are POSTed to.' }),
  events: Type.Array(Type.String(), { description: 'Subscribed event types, or `*` for all.' }),
  format: Format,
  isActive: Type.Boolean({ description: '`false` keeps the subscription but makes no deliveries.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  ...stats,
};

export const WebhookSchema = Type.Object(subscriptionFields, {
  description: 'A webhook subscription with its delivery stats; the secret is never shown here.',
});

export const CreatedWebhookSchema = Type.Object(
  { ...subscriptionFields, secret: SecretField },
  { description: 'The new subscription, with its signing secret (shown this once).' },
);

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Events, format: Type.Optional(FormatInput) },
  {
    additionalProperties: false,
    examples: [
      { url: 'https://hooks.example.com/commerce', events: ['order.created', 'payment.succeeded'] },
      {
        url: 'https://agent.example.com/agentic_checkout/webhooks/order_events',
        events: ['*'],
        format: 'acp',
      },
    ],
  },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    isActive: Type.Optional(
      Type.Boolean({ description: '`false` stops deliveries (events meanwhile are not delivered later).' }),
    ),
    format: Type.Optional(FormatInput),
  },
  { additionalProperties: false, examples: [{ events: ['*'], isActive: true }], minProperties: 1 },
);

export const WebhookParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Webhook id.' }),
});

export const RotatedSecretSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Id of the subscription.' }),
    secret: SecretField,
    overlapHours: Type.Literal(SECRET_OVERLAP_HOURS, {
      description: 'Hours during which deliveries are signed with both the new and the previous secret.',
    }),
    previousSecretExpiresAt: Type.String({
      format: 'date-time',
      description: 'When the previous secret stops signing; afterwards only the new one does.',
    }),
  },
  { description: 'The new signing secret (shown this once) and the overlap window.' },
);

export const EventTypeSchema = Type.Object({
  type: Type.String({ description: 'Event type, as used in `events` and the `X-Webhook-Event` header.' }),
  description: Type.String({ description: 'When the event is emitted.' }),
});

const NullableTimestamp = (description: string) => Type.Union([Timestamp, Type.Null()], { description });

const deliveryFields = {
  id: Type.String({
    format: 'uuid',
    description:
      'Id of the delivery: the id of its event (one delivery per event per subscription), also sent as ' +
      'the `webhook-id` header and the body `id`.',
  }),
  subscriptionId: Type.String({ format: 'uuid', description: 'The webhook subscription delivered to.' }),
  eventId: Type.String({ format: 'uuid', description: 'The event delivered.' }),
  eventType: Type.String({ description: 'The event type, e.g. `order.created`.' }),
  status: StringEnum(DELIVERY_STATUSES, {
    description:
      '`pending`: not yet attempted (or re-enqueued by replay); `failed`: the last attempt failed and ' +
      'another is scheduled at `nextAttemptAt`; `succeeded`: a 2xx arrived within 10 s; `dead_letter`: ' +
      '5 attempts failed, nothing more is tried until replay.',
  }),
  attemptCount: Type.Integer({ minimum: 0, description: 'Attempts made in all, replays included.' }),
  nextAttemptAt: NullableTimestamp(
    'When the next attempt is due (while a worker is sending it, the end of its claim); null once ' +
      '`succeeded` or `dead_letter`. Deliveries of an inactive subscription wait until it is active again.',
  ),
  lastAttemptAt: NullableTimestamp('When it was last attempted; null before the first attempt.'),
  lastResponseStatus: Type.Union([Type.Integer(), Type.Null()], {
    description: 'HTTP status of the last attempt; null before it, or when it got no response.',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const DeliverySchema = Type.Object(deliveryFields, {
  description: 'One event delivered (or to be delivered) to one webhook subscription.',
});

export const AttemptSchema = Type.Object({
  attempt: Type.Integer({ minimum: 1, description: 'Number of the attempt, from 1, across replays.' }),
  attemptedAt: Timestamp,
  responseStatus: Type.Union([Type.Integer(), Type.Null()], {
    description: 'HTTP status received; null when there was no response (error or timeout).',
  }),
  durationMs: Type.Integer({ minimum: 0, description: 'How long the attempt took.' }),
  responseBody: Type.Union([Type.String(), Type.Null()], {
    description: 'The first 1,024 characters of the response body.',
  }),
  error: Type.Union([Type.String(), Type.Null()], {
    description:
      'Why it failed without a response: connection error, `timed out after 10000 ms`, blocked target.',
  }),
});

export const DeliveredEventSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Event id (stable across attempts).' }),
    event: Type.String({ description: 'Event type.' }),
    timestamp: Type.String({ format: 'date-time', description: 'When the event occurred.' }),
    tenantId: Type.String({ format: 'uuid', description: 'The tenant the event belongs to.' }),
    data: Type.Unknown({ description: 'The resource that changed.' }),
  },
  { description: 'The body POSTed to the receiver, as JSON.' },
);

export const DeliveryDetailSchema = Type.Object(
  {
    ...deliveryFields,
    event: DeliveredEventSchema,
    attempts: Type.Array(AttemptSchema, { description: 'Every attempt, oldest first.' }),
  },
  { description: 'A delivery with the event it carries and every attempt made.' },
);

export const DeliveryParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Webhook id.' }),
  deliveryId: Type.String({ format: 'uuid', description: 'Delivery id (its event id).' }),
});

export const DELIVERY_PAGE_MAX = 500;

export const DeliveryListQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only deliveries in this status.' })),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: DELIVERY_PAGE_MAX,
        description: 'Page size (default 100, max 500).',
      }),
    ),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10_000_000,
        description: 'Deliveries to skip (default 0); not with `cursor`.',
      }),
    ),
    cursor: PageQueryFields.cursor,
  },
  { additionalProperties: false },
);

export const DeliveryPaginationSchema = Type.Object({
  total: Type.Integer({ description: 'Deliveries matching the filter (not the size of this page).' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
});
