import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-helpers.js';
import { DELIVERY_STATUSES } from './tables.js';
import { WEBHOOK_URL_MAX_LENGTH } from './url-safety.js';

const Timestamp = Type.String({ format: 'date-time' });

export const WEBHOOK_EVENTS_MAX = 50;
export const SECRET_OVERLAP_HOURS = 24;

const Url = Type.String({
  minLength: 1,
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  description:
    'Where deliveries are POSTed: an absolute `https://` URL without credentials, at most 2048 characters, ' +
    'whose host resolves only to public addresses (loopback, private, link-local and reserved ones are ' +
    'refused with 400 rule `public_target`; a host that does not resolve gives rule `resolvable`).',
});

const Events = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: WEBHOOK_EVENTS_MAX,
  uniqueItems: true,
  description:
    'Event types to receive (1-50, no duplicates), from GET /webhooks/event-types, or `*` for every type ' +
    '(including types added later). Unknown types give 400 naming them.',
});

const SecretField = Type.String({
  pattern: '^whsec_[A-Za-z0-9_-]{43}$',
  description:
    'The signing secret (`whsec_` + 43 base64url characters). Shown only now: store it to verify the ' +
    '`X-Webhook-Signature` HMAC-SHA256 of each delivery. It cannot be read again; rotate it to get a new one.',
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

export const CreateWebhookBody = Type.Object({ url: Url, events: Events }, { additionalProperties: false });

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    isActive: Type.Optional(
      Type.Boolean({ description: '`false` stops deliveries (events meanwhile are not delivered later).' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const WebhookParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Id of the webhook subscription.' }),
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
