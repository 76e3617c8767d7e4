import { Type } from 'typebox';
import { StringEnum } from '../../../core/schema.js';
import { sessionExample } from './examples.js';
import { BuyerOut, FulfillmentDetailsOut } from './schema-parts.js';

// The ACP CheckoutSession as we answer it (one schema for every status; `order` once completed).

const TotalOut = Type.Object({
  type: StringEnum([
    'items_base_amount',
    'items_discount',
    'subtotal',
    'discount',
    'fulfillment',
    'tax',
    'total',
  ]),
  display_text: Type.String(),
  amount: Type.Integer({ description: 'Minor units of the session’s currency.' }),
});

const LineItemOut = Type.Object({
  id: Type.String({ description: 'Stable per product within the session.' }),
  item: Type.Object({ id: Type.String({ description: 'The product id.' }) }),
  quantity: Type.Integer(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  unit_amount: Type.Integer(),
  totals: Type.Array(TotalOut, {
    description: 'items_base_amount (unit x quantity), discount, subtotal, tax and total of the line.',
  }),
});

const FulfillmentOptionOut = Type.Object({
  type: StringEnum(['shipping', 'digital']),
  id: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  carrier: Type.Optional(Type.String()),
  earliest_delivery_time: Type.Optional(Type.String({ format: 'date-time' })),
  latest_delivery_time: Type.Optional(Type.String({ format: 'date-time' })),
  totals: Type.Array(TotalOut),
});

const SelectedOptionOut = Type.Object({
  type: StringEnum(['shipping', 'digital']),
  option_id: Type.String(),
  item_ids: Type.Array(Type.String(), { description: 'The product ids the option serves.' }),
});

const MessageOut = Type.Object({
  type: StringEnum(['info', 'warning', 'error']),
  code: Type.Optional(Type.String({ description: 'On warnings and errors.' })),
  param: Type.Optional(Type.String({ description: 'RFC 9535 JSONPath of what the message is about.' })),
  resolution: Type.Optional(StringEnum(['recoverable', 'requires_buyer_input', 'requires_buyer_review'])),
  content_type: StringEnum(['plain']),
  content: Type.String(),
});

const HandlerOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  display_name: Type.String(),
  version: Type.String(),
  spec: Type.String(),
  requires_delegate_payment: Type.Boolean(),
  requires_pci_compliance: Type.Boolean(),
  psp: Type.String(),
  config_schema: Type.String(),
  instrument_schemas: Type.Array(Type.String()),
  config: Type.Object({}, { additionalProperties: true }),
});

const CapabilitiesOut = Type.Object({
  payment: Type.Object({ handlers: Type.Array(HandlerOut) }),
  interventions: Type.Object({
    supported: Type.Array(Type.String(), { description: 'The intersection with the agent’s (none today).' }),
    required: Type.Array(Type.String()),
    enforcement: StringEnum(['always', 'conditional', 'optional']),
  }),
  extensions: Type.Array(
    Type.Object({
      name: Type.String(),
      extends: Type.Array(Type.String()),
      spec: Type.Optional(Type.String()),
      schema: Type.Optional(Type.String()),
    }),
  ),
});

const AppliedDiscountOut = Type.Object({
  id: Type.String(),
  code: Type.String(),
  coupon: Type.Object({ id: Type.String(), name: Type.String() }),
  amount: Type.Integer(),
  automatic: Type.Boolean(),
  method: Type.Optional(StringEnum(['each', 'across'])),
  allocations: Type.Optional(Type.Array(Type.Object({ path: Type.String(), amount: Type.Integer() }))),
});

const DiscountsOut = Type.Object({
  codes: Type.Array(Type.String()),
  applied: Type.Array(AppliedDiscountOut),
  rejected: Type.Array(
    Type.Object({ code: Type.String(), reason: Type.String(), message: Type.Optional(Type.String()) }),
  ),
});

export const AcpSessionSchema = Type.Object(
  {
    id: Type.String(),
    protocol: Type.Object({ version: Type.String() }),
    capabilities: CapabilitiesOut,
    buyer: Type.Optional(BuyerOut),
    status: StringEnum([
      'not_ready_for_payment',
      'ready_for_payment',
      'in_progress',
      'completed',
      'canceled',
    ]),
    currency: Type.String({ description: 'ISO 4217, lower case.' }),
    line_items: Type.Array(LineItemOut),
    fulfillment_details: Type.Optional(FulfillmentDetailsOut),
    fulfillment_options: Type.Array(FulfillmentOptionOut),
    selected_fulfillment_options: Type.Array(SelectedOptionOut),
    totals: Type.Array(TotalOut),
    messages: Type.Array(MessageOut),
    links: Type.Array(Type.Object({ type: Type.String(), url: Type.String() })),
    discounts: DiscountsOut,
    continue_url: Type.Optional(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    expires_at: Type.String({ format: 'date-time' }),
    order: Type.Optional(
      Type.Object({ id: Type.String(), checkout_session_id: Type.String(), permalink_url: Type.String() }),
    ),
  },
  {
    description: 'The ACP CheckoutSession: the authoritative state after every call.',
    examples: [sessionExample],
  },
);
