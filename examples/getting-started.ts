// biome-ignore-all lint/correctness/noUnusedVariables: each answer is named, as on the page
// Generated with docs/getting-started.md by test/docs/getting-started.test.ts: the TypeScript of
// its steps, one after another. Run the server (npm start), export KEY and ADMIN_KEY as the page
// says (BASE_URL if not http://127.0.0.1:3000), then:
//   npx tsx --conditions=commerce-agent-source examples/getting-started.ts
import { createCommerceClient } from '@commerce-agent/client';

const baseUrl = process.env.BASE_URL ?? 'http://127.0.0.1:3000';
const api = createCommerceClient({ baseUrl, apiKey: process.env.KEY ?? '' });
const admin = createCommerceClient({ baseUrl, apiKey: process.env.ADMIN_KEY ?? '' });

/** The body of a successful call; anything else throws with the error body. */
async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || data === undefined) {
    throw new Error(`HTTP ${response.status}: ${JSON.stringify(error)}`);
  }
  return data;
}

// 1. Ask what the key can do
const manifest = await ok(api.GET('/api/v1/manifest'));

// 2. Browse the catalog
const catalog = await ok(api.GET('/api/v1/catalog', { params: { query: { limit: 2 } } }));

// 3. Search it
const found = await ok(api.GET('/api/v1/catalog/search', { params: { query: { q: 'workshop' } } }));
const workshop = found.data[0];
if (!workshop) throw new Error('no product matches "workshop"');

// 4. Open a billing account (admin key)
const billing = await ok(
  admin.POST('/api/v1/admin/billing/accounts', {
    body: { name: 'Initech', currency: 'USD' },
  }),
);

// 5. Create the buyer’s account
const account = await ok(
  api.POST('/api/v1/accounts', {
    body: { name: 'Initech', externalId: billing.data.id },
  }),
);

// 6. Create a cart with the product
const cart = await ok(
  api.POST('/api/v1/carts', {
    body: {
      currency: 'USD',
      organizationId: account.data.id,
      items: [{ productId: workshop.productId, quantity: 1 }],
    },
  }),
);

// 7. Add another item
const filled = await ok(
  api.POST('/api/v1/carts/{id}/items', {
    params: { path: { id: cart.data.id } },
    body: { productId: '0190a000-0000-7000-8000-000000000006', quantity: 2 },
  }),
);

// 8. Check out: create the order
const order = await ok(api.POST('/api/v1/orders', { body: { cartId: cart.data.id } }));

// 9. Pay the invoice
const session = await ok(
  api.POST('/api/v1/invoices/{id}/pay', {
    params: { path: { id: order.data.invoiceId ?? '' } },
    body: { accountId: billing.data.id, amountCents: order.data.totalCents, currency: 'USD' },
  }),
);

// 10. Complete the payment (sandbox)
const paid = await ok(
  api.POST('/api/v1/payments/{id}/complete', {
    params: { path: { id: session.data.id } },
    body: { proof: 'sandbox' },
  }),
);

// 11. Read the order
const paidOrder = await ok(api.GET('/api/v1/orders/{id}', { params: { path: { id: order.data.id } } }));

// 12. And its invoice
const invoices = await ok(
  api.GET('/api/v1/accounts/{id}/invoices', {
    params: { path: { id: account.data.id } },
  }),
);

// 13. Subscribe to a plan
const subscription = await ok(
  api.POST('/api/v1/subscriptions', {
    body: { productId: '0190a000-0000-7000-8000-000000000002', quantity: 5, organizationId: account.data.id },
  }),
);

// 14. Refund part of the payment
const refund = await ok(
  api.POST('/api/v1/payments/{id}/refunds', {
    params: { path: { id: session.data.id } },
    body: { amountCents: 1000, reason: 'requested_by_customer' },
  }),
);

// 15. Register a webhook
const webhook = await ok(
  api.POST('/api/v1/webhooks', {
    body: { url: 'https://example.com/webhooks', events: ['order.created', 'payment.succeeded'] },
  }),
);

console.log('getting started: every step answered');
