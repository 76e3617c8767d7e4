// A session as the ACP routes answer it (ids fixed), for the schemas' examples.

const SESSION_ID = '0190b000-0000-7000-8000-00000000c001';
const PRODUCT_ID = '0190b000-0000-7000-8000-00000000a001';

export const sessionExample = {
  id: SESSION_ID,
  protocol: { version: '2026-04-17' },
  capabilities: {
    payment: {
      handlers: [
        {
          id: 'acp_delegated_card',
          name: 'dev.acp.tokenized.card',
          display_name: 'Card',
          version: '2026-01-22',
          spec: 'https://acp.dev/handlers/tokenized.card',
          requires_delegate_payment: true,
          requires_pci_compliance: false,
          psp: 'commerce_agent_api',
          config_schema: 'https://acp.dev/schemas/handlers/tokenized.card/config.json',
          instrument_schemas: ['https://acp.dev/schemas/handlers/tokenized.card/instrument.json'],
          config: {
            merchant_id: '0190b000-0000-7000-8000-000000000001',
            delegate_payment_url: 'https://api.example.com/api/v1/agentic_commerce/delegate_payment',
            accepted_brands: ['visa', 'mastercard', 'amex', 'discover'],
            supports_3ds: false,
            environment: 'sandbox',
          },
        },
      ],
    },
    interventions: { supported: [], required: [], enforcement: 'conditional' },
    extensions: [
      {
        name: 'discount',
        extends: [
          '$.CheckoutSessionCreateRequest.discounts',
          '$.CheckoutSessionUpdateRequest.discounts',
          '$.CheckoutSession.discounts',
        ],
      },
    ],
  },
  buyer: { first_name: 'Jane', last_name: 'Doe', email: 'jane@example.com' },
  status: 'ready_for_payment',
  currency: 'usd',
  line_items: [
    {
      id: `li_${PRODUCT_ID}`,
      item: { id: PRODUCT_ID },
      quantity: 2,
      name: 'Mug',
      unit_amount: 1500,
      totals: [
        { type: 'items_base_amount', display_text: 'Base amount', amount: 3000 },
        { type: 'discount', display_text: 'Discount', amount: 300 },
        { type: 'subtotal', display_text: 'Subtotal', amount: 2700 },
        { type: 'tax', display_text: 'Tax', amount: 0 },
        { type: 'total', display_text: 'Total', amount: 2700 },
      ],
    },
  ],
  fulfillment_details: {
    name: 'Jane Doe',
    email: 'jane@example.com',
    address: {
      name: 'Jane Doe',
      line_one: '1234 Chat Road',
      city: 'San Francisco',
      state: 'CA',
      country: 'US',
      postal_code: '94131',
    },
  },
  fulfillment_options: [
    {
      type: 'shipping',
      id: '0190b000-0000-7000-8000-00000000b001',
      title: 'Standard',
      earliest_delivery_time: '2026-03-04T10:00:00.000Z',
      latest_delivery_time: '2026-03-06T10:00:00.000Z',
      totals: [{ type: 'total', display_text: 'Shipping', amount: 500 }],
    },
  ],
  selected_fulfillment_options: [
    { type: 'shipping', option_id: '0190b000-0000-7000-8000-00000000b001', item_ids: [PRODUCT_ID] },
  ],
  totals: [
    { type: 'items_base_amount', display_text: 'Item(s) total', amount: 3000 },
    { type: 'items_discount', display_text: 'Item discounts', amount: 300 },
    { type: 'subtotal', display_text: 'Subtotal', amount: 2700 },
    { type: 'fulfillment', display_text: 'Fulfillment', amount: 500 },
    { type: 'tax', display_text: 'Tax', amount: 0 },
    { type: 'total', display_text: 'Total', amount: 3200 },
  ],
  messages: [],
  links: [{ type: 'terms_of_use', url: 'https://shop.example.com/terms' }],
  discounts: {
    codes: ['SAVE10'],
    applied: [
      {
        id: 'di_save10',
        code: 'SAVE10',
        coupon: { id: 'SAVE10', name: '10% off' },
        amount: 300,
        automatic: false,
        method: 'across',
        allocations: [{ path: '$.line_items[0]', amount: 300 }],
      },
    ],
    rejected: [],
  },
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-01T10:01:00.000Z',
  expires_at: '2026-03-02T10:00:00.000Z',
};
