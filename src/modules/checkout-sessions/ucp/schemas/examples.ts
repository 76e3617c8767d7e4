// Examples for our OpenAPI document (the UCP routes are internal there, but documented): a
// checkout as create answers it, the same completed, an order, an error and a business profile.

const PRODUCT = '0190b000-0000-7000-8000-000000000003';
const SESSION = '0190b000-0000-7000-8000-000000000020';
const ORDER = '0190b000-0000-7000-8000-000000000008';
const BASE = 'https://api.example.com';

const ucp = {
  version: '2026-04-08',
  status: 'success',
  capabilities: {
    'dev.ucp.shopping.checkout': [{ version: '2026-04-08' }],
    'dev.ucp.shopping.discount': [{ version: '2026-04-08' }],
    'dev.ucp.shopping.fulfillment': [{ version: '2026-04-08' }],
  },
  payment_handlers: {
    'com.example.sandbox_card': [
      {
        id: 'sandbox_card',
        version: '2026-04-08',
        available_instruments: [{ type: 'card' }],
        config: { environment: 'sandbox' },
      },
    ],
  },
};

const line = {
  id: `li_${PRODUCT}`,
  item: { id: PRODUCT, title: 'Canvas tote bag', price: 2500 },
  quantity: 2,
  totals: [
    { type: 'subtotal', amount: 5000 },
    { type: 'total', amount: 5000 },
  ],
};

export const checkoutExample = {
  ucp,
  id: SESSION,
  status: 'incomplete',
  currency: 'USD',
  line_items: [line],
  buyer: { email: 'jane@example.com', first_name: 'Jane', last_name: 'Doe' },
  fulfillment: {
    methods: [
      {
        id: 'shipping_1',
        type: 'shipping',
        line_item_ids: [line.id],
        selected_destination_id: null,
        destinations: [],
        groups: [{ id: 'group_1', line_item_ids: [line.id], selected_option_id: null, options: [] }],
      },
    ],
  },
  discounts: { codes: [], applied: [] },
  totals: [
    { type: 'subtotal', display_text: 'Subtotal', amount: 5000 },
    { type: 'tax', display_text: 'Tax', amount: 0 },
    { type: 'total', display_text: 'Total', amount: 5000 },
  ],
  messages: [
    {
      type: 'error',
      code: 'missing',
      path: '$.fulfillment.methods[0].selected_destination_id',
      content: 'A shipping address is required',
      severity: 'recoverable',
    },
  ],
  links: [{ type: 'terms_of_service', url: 'https://shop.example.com/terms', title: 'Terms of use' }],
  expires_at: '2026-03-01T16:00:00.000Z',
};

export const completedExample = {
  ...checkoutExample,
  status: 'completed',
  messages: [],
  order: { id: ORDER, permalink_url: `${BASE}/api/v1/orders/${ORDER}` },
};

export const orderExample = {
  ucp: {
    version: '2026-04-08',
    status: 'success',
    capabilities: { 'dev.ucp.shopping.order': [{ version: '2026-04-08' }] },
  },
  id: ORDER,
  label: 'ORD-1000',
  checkout_id: SESSION,
  permalink_url: `${BASE}/api/v1/orders/${ORDER}`,
  currency: 'USD',
  line_items: [{ ...line, quantity: { original: 2, total: 2, fulfilled: 0 }, status: 'processing' }],
  fulfillment: {
    expectations: [
      {
        id: 'exp_shipping',
        line_items: [{ id: line.id, quantity: 2 }],
        method_type: 'shipping',
        destination: {
          street_address: '123 Main St',
          address_locality: 'Springfield',
          address_region: 'IL',
          postal_code: '62701',
          address_country: 'US',
        },
        description: 'Standard',
        fulfillable_on: 'now',
      },
    ],
    events: [],
  },
  adjustments: [],
  totals: [
    { type: 'subtotal', display_text: 'Subtotal', amount: 5000 },
    { type: 'fulfillment', display_text: 'Shipping', amount: 500 },
    { type: 'tax', display_text: 'Tax', amount: 0 },
    { type: 'total', display_text: 'Total', amount: 5500 },
  ],
};

export const errorExample = {
  ucp: { version: '2026-04-08', status: 'error' },
  messages: [
    {
      type: 'error',
      code: 'not_found',
      content: 'Checkout session not found',
      severity: 'unrecoverable',
    },
  ],
};

export const profileExample = {
  ucp: {
    version: '2026-04-08',
    services: {
      'dev.ucp.shopping': [
        {
          version: '2026-04-08',
          spec: 'https://ucp.dev/2026-04-08/specification/overview',
          transport: 'rest',
          endpoint: `${BASE}/ucp/v1`,
          schema: 'https://ucp.dev/2026-04-08/services/shopping/rest.openapi.json',
        },
      ],
    },
    capabilities: {
      'dev.ucp.shopping.checkout': [
        {
          version: '2026-04-08',
          spec: 'https://ucp.dev/2026-04-08/specification/checkout',
          schema: 'https://ucp.dev/2026-04-08/schemas/shopping/checkout.json',
        },
      ],
    },
    payment_handlers: ucp.payment_handlers,
  },
  signing_keys: [
    {
      kid: 'Xq9ZQeA0wV2r3n1Y0cTq6C1nYb2n0S3t4u5v6w7x8y0',
      kty: 'EC',
      crv: 'P-256',
      x: 'WbbXwVYGdJoP4Xm3qCkGvBRcRvKtEfXDbWvPzpPS8LA',
      y: 'sP4jHHxYqC89HBo8TjrtVOAGHfJDflYxw7MFMxuFMPY',
      use: 'sig',
      alg: 'ES256',
    },
  ],
};
