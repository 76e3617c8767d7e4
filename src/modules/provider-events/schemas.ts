import { type Static, Type } from 'typebox';
import { MAX_AMOUNT_CENTS } from '../../core/money.js';
import { StringEnum } from '../../core/schema.js';

/** Payment providers this deployment can receive events from; `sandbox` is the built-in engine's. */
export const PROVIDERS = ['sandbox'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export const isProvider = (value: string): value is ProviderName =>
  (PROVIDERS as readonly string[]).includes(value);

export const PROVIDER_EVENT_TYPES = ['payment.succeeded', 'payment.failed'] as const;

/** The event a provider POSTs to its callback URL (validated only after the signature is). */
export const ProviderEventSchema = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The provider’s event id: an event id already received is acknowledged and ignored.',
    }),
    type: StringEnum(PROVIDER_EVENT_TYPES),
    data: Type.Object(
      {
        paymentSessionId: Type.String({
          format: 'uuid',
          description: 'The payment session the money moved for.',
        }),
        amountCents: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: MAX_AMOUNT_CENTS,
            description:
              'Amount the provider moved, minor units; must equal the session amount when present.',
          }),
        ),
        failureReason: Type.Optional(Type.String({ maxLength: 1000 })),
      },
      { additionalProperties: true },
    ),
  },
  // Providers add fields over time; unknown ones are kept in the stored payload, not refused.
  { additionalProperties: true },
);
export type ProviderEvent = Static<typeof ProviderEventSchema>;

export const PutProviderBody = Type.Object(
  {
    provider: StringEnum(PROVIDERS, { description: 'The payment provider; `sandbox` is the built-in one.' }),
  },
  { additionalProperties: false, examples: [{ provider: 'sandbox' }] },
);

const Timestamp = Type.String({ format: 'date-time' });

const integrationFields = {
  provider: Type.String(),
  endpointId: Type.String({ description: 'Unguessable id in the callback URL; it names the tenant.' }),
  callbackUrl: Type.String({
    description: 'Where the provider POSTs signed events (an internal route, not part of this API).',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const ProviderIntegrationSchema = Type.Object(integrationFields);

export const IssuedProviderIntegrationSchema = Type.Object({
  ...integrationFields,
  secret: Type.String({
    description:
      'Signing secret (`whsec_...`), shown only in this response: configure it at the provider. ' +
      'Signature: `Provider-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.',
  }),
});

export const SimulateBody = Type.Object(
  {
    paymentSessionId: Type.String({
      format: 'uuid',
      description: 'The session the simulated provider reports on.',
    }),
    outcome: StringEnum(['succeeded', 'failed'], { description: 'What the provider reports.' }),
    failureReason: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'For `failed`; default `card_declined`.' }),
    ),
    eventId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'Provider event id to send; default a new `evt_...` (send one twice to see deduplication).',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ paymentSessionId: '0190b000-0000-7000-8000-000000000009', outcome: 'succeeded' }],
  },
);

/** What the callback answers a provider (2xx means: do not retry). */
export const ReceiptSchema = Type.Object({
  received: Type.Literal(true),
  applied: Type.Boolean({ description: 'Whether this event changed the payment session.' }),
  duplicate: Type.Boolean({ description: 'The event id had been received before; nothing changed.' }),
  reason: Type.Optional(
    StringEnum(['unknown_session', 'terminal', 'amount_mismatch', 'settlement_refused', 'refunded'], {
      description: 'Why a new event was recorded without changing the session.',
    }),
  ),
  paymentSessionId: Type.String(),
  status: Type.Optional(Type.String({ description: 'The session’s status after the event.' })),
  reversed: Type.Optional(
    Type.Boolean({
      description: 'A failure after a settlement: the settlement was reversed, the session failed.',
    }),
  ),
});
export type Receipt = Static<typeof ReceiptSchema>;

export const SimulationSchema = Type.Object({
  event: Type.Object({}, { additionalProperties: true, description: 'The event the sandbox provider sent.' }),
  delivery: Type.Object({
    statusCode: Type.Integer({ description: 'Status the callback answered.' }),
    body: Type.Unknown({ description: 'Body the callback answered (a receipt, or an error body).' }),
  }),
});
