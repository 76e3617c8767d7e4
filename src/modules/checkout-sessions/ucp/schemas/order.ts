import { Type } from 'typebox';
import { StringEnum } from '../../../../core/schema.js';
import { PaymentHandlers, PostalAddress, Totals, UcpOrderMeta } from './common.js';

// The order entity (shopping/order.json): what GET /orders/{id} answers and what the order
// webhook carries; and the business profile served at /.well-known/ucp.

const LineRef = Type.Object({ id: Type.String(), quantity: Type.Integer() });

export const OrderResponse = Type.Object({
  ucp: UcpOrderMeta,
  id: Type.String({ description: 'The order id.' }),
  label: Type.Optional(Type.String({ description: 'The order number buyers see, e.g. `ORD-1000`.' })),
  checkout_id: Type.String({ description: 'The checkout session that placed it.' }),
  permalink_url: Type.String({ format: 'uri' }),
  currency: Type.String(),
  line_items: Type.Array(
    Type.Object({
      id: Type.String(),
      item: Type.Object({ id: Type.String(), title: Type.String(), price: Type.Integer({ minimum: 0 }) }),
      quantity: Type.Object({
        original: Type.Integer({ minimum: 0 }),
        total: Type.Integer({ minimum: 0 }),
        fulfilled: Type.Integer({ minimum: 0 }),
      }),
      totals: Totals,
      status: StringEnum(['processing', 'partial', 'fulfilled', 'removed']),
    }),
  ),
  fulfillment: Type.Object({
    expectations: Type.Array(
      Type.Object({
        id: Type.String(),
        line_items: Type.Array(LineRef),
        method_type: StringEnum(['shipping', 'pickup', 'digital']),
        destination: PostalAddress,
        description: Type.Optional(Type.String()),
        fulfillable_on: Type.Optional(Type.String()),
      }),
    ),
    events: Type.Array(
      Type.Object({
        id: Type.String(),
        occurred_at: Type.String({ format: 'date-time' }),
        type: Type.String(),
        line_items: Type.Array(LineRef),
        description: Type.Optional(Type.String()),
      }),
    ),
  }),
  adjustments: Type.Array(
    Type.Object({
      id: Type.String(),
      type: Type.String({ description: 'refund or cancellation.' }),
      occurred_at: Type.String({ format: 'date-time' }),
      status: StringEnum(['pending', 'completed', 'failed']),
      totals: Type.Optional(Totals),
      description: Type.Optional(Type.String()),
    }),
  ),
  totals: Totals,
});

export const OrderParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'The order id (`order.id` of a completed checkout).',
  }),
});

const Entity = {
  version: Type.String(),
  spec: Type.Optional(Type.String({ format: 'uri' })),
  schema: Type.Optional(Type.String({ format: 'uri' })),
};

const SigningKey = Type.Object({
  kid: Type.String(),
  kty: Type.String(),
  crv: Type.Optional(Type.String()),
  x: Type.Optional(Type.String()),
  y: Type.Optional(Type.String()),
  use: Type.Optional(Type.String()),
  alg: Type.Optional(Type.String()),
});

export const BusinessProfile = Type.Object({
  ucp: Type.Object({
    version: Type.String({ description: 'The protocol version this profile describes.' }),
    services: Type.Record(
      Type.String(),
      Type.Array(
        Type.Object({
          ...Entity,
          transport: StringEnum(['rest', 'mcp', 'a2a', 'embedded']),
          endpoint: Type.String({ format: 'uri' }),
        }),
      ),
    ),
    capabilities: Type.Record(
      Type.String(),
      Type.Array(Type.Object({ ...Entity, extends: Type.Optional(Type.String()) })),
    ),
    payment_handlers: PaymentHandlers,
  }),
  signing_keys: Type.Array(SigningKey, {
    description: 'Public keys (JWK, EC P-256) that verify our signed order webhooks.',
  }),
});

export const TenantProfileParams = Type.Object({
  tenant: Type.String({ format: 'uuid', description: 'The tenant (business) id.' }),
});
