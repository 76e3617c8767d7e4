// The walkthrough of docs/getting-started.md, step by step: the prose, the request (run with curl),
// the same call with the TypeScript client (run too), which fields of the answer to show, and which
// values later steps use. test/docs/getting-started.test.ts runs it against the server and writes
// (or checks) the document.

// biome-ignore lint/suspicious/noExplicitAny: a response body of any shape, read by field
export type Json = any;

export interface Step {
  title: string;
  prose: string;
  /** The key's shell variable: `KEY` (commerce scope) or `ADMIN_KEY`. */
  key: 'KEY' | 'ADMIN_KEY';
  method: 'GET' | 'POST';
  /** Under /api/v1, with shell variables (`/carts/$CART/items`). */
  path: string;
  /** The JSON body, with shell variables (sent through a heredoc, so they expand). */
  body?: string;
  /** The TypeScript client call; it declares `result` (named by `tsResult`). */
  ts: string;
  tsResult: string;
  status: number;
  /** Shell variables later steps use: where in this step's answer each is (`data.id`, `data.0.productId`). */
  sets?: Record<string, string>;
  /** What the document shows of the answer. */
  show: (body: Json) => unknown;
}

const pick = (value: Json, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => value && k in value).map((k) => [k, value[k]]));

/** The actions as a person reads them: rel, method, href and what is filled in. */
const actions = (body: Json, rels?: string[]) =>
  (body.nextActions as Json[])
    .filter((a) => !rels || rels.includes(a.rel))
    .map((a) => ({
      rel: a.rel,
      method: a.method,
      href: a.href,
      ...(a.arguments && Object.keys(a.arguments).length > 0 ? { arguments: a.arguments } : {}),
    }));

const PRODUCT_FIELDS = ['id', 'name', 'type', 'currency', 'billingInterval'];

/** The value at a dotted path of a body (`data.0.productId`). */
export const valueAt = (body: Json, path: string): string | number =>
  path.split('.').reduce((v, key) => v?.[key], body);

export const SETUP_SH = `export BASE=http://127.0.0.1:3000/api/v1
export KEY=$(jq -r .keys.commerce data/demo-keys.json)    # or paste the commerce key the start printed
export ADMIN_KEY=$(jq -r .keys.admin data/demo-keys.json)`;

export const SETUP_TS = `import { createCommerceClient } from '@commerce-agent/client';

const baseUrl = process.env.BASE_URL ?? 'http://127.0.0.1:3000';
const api = createCommerceClient({ baseUrl, apiKey: process.env.KEY ?? '' });
const admin = createCommerceClient({ baseUrl, apiKey: process.env.ADMIN_KEY ?? '' });

/** The body of a successful call; anything else throws with the error body. */
async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || data === undefined) {
    throw new Error(\`HTTP \${response.status}: \${JSON.stringify(error)}\`);
  }
  return data;
}`;

export const STEPS: Step[] = [
  {
    title: 'Ask what the key can do',
    prose:
      'The manifest names the tenant, the key’s scopes and where the typical flow starts. Every answer ' +
      'carries `nextActions`: what to call next, with the ids it needs filled in.',
    key: 'KEY',
    method: 'GET',
    path: '/manifest',
    ts: `const manifest = await ok(api.GET('/api/v1/manifest'));`,
    tsResult: 'manifest',
    status: 200,
    show: (b) => ({
      data: {
        environment: b.data.environment,
        tenant: pick(b.data.tenant, ['name']),
        key: pick(b.data.key, ['scopes', 'rateTier']),
      },
      nextActions: actions(b, ['catalog', 'createAccount', 'createCart']),
    }),
  },
  {
    title: 'Browse the catalog',
    prose:
      'Active products at list price, a page at a time. Each product comes with `resolvePrice` (what this ' +
      'buyer pays) and `createCart` with the product already in it.',
    key: 'KEY',
    method: 'GET',
    path: '/catalog?limit=2',
    ts: `const catalog = await ok(api.GET('/api/v1/catalog', { params: { query: { limit: 2 } } }));`,
    tsResult: 'catalog',
    status: 200,
    show: (b) => ({
      data: b.data.map((p: Json) => pick(p, PRODUCT_FIELDS)),
      nextActions: actions(b, ['resolvePrice', 'createCart']).slice(0, 2),
      meta: b.meta,
    }),
  },
  {
    title: 'Search it',
    prose:
      'Relevance over names, descriptions and attributes, with the price of one unit and availability. ' +
      'Pass `cartId` once you have a cart to get `addCartItem` actions instead.',
    key: 'KEY',
    method: 'GET',
    path: '/catalog/search?q=workshop',
    ts: `const found = await ok(api.GET('/api/v1/catalog/search', { params: { query: { q: 'workshop' } } }));
const workshop = found.data[0];
if (!workshop) throw new Error('no product matches "workshop"');`,
    tsResult: 'found',
    status: 200,
    sets: { WORKSHOP: 'data.0.productId' },
    show: (b) => ({
      data: b.data.map((r: Json) => pick(r, ['productId', 'title', 'type', 'priceCents', 'availability'])),
      nextActions: actions(b, ['createCart']),
    }),
  },
  {
    title: 'Open a billing account (admin key)',
    prose:
      'Invoices and payments live in the tenant’s billing system (the built-in one in the demo). An ' +
      'admin creates the customer’s billing account once.',
    key: 'ADMIN_KEY',
    method: 'POST',
    path: '/admin/billing/accounts',
    body: '{ "name": "Initech", "currency": "USD" }',
    ts: `const billing = await ok(
  admin.POST('/api/v1/admin/billing/accounts', {
    body: { name: 'Initech', currency: 'USD' },
  }),
);`,
    tsResult: 'billing',
    status: 201,
    sets: { BILLING: 'data.id' },
    show: (b) => ({ data: pick(b.data, ['id', 'name', 'currency']) }),
  },
  {
    title: 'Create the buyer’s account',
    prose:
      'The account orders are placed for. Linked to the billing account by `externalId`, its orders are ' +
      'invoiced at once.',
    key: 'KEY',
    method: 'POST',
    path: '/accounts',
    body: '{ "name": "Initech", "externalId": "$BILLING" }',
    ts: `const account = await ok(
  api.POST('/api/v1/accounts', {
    body: { name: 'Initech', externalId: billing.data.id },
  }),
);`,
    tsResult: 'account',
    status: 201,
    sets: { ACCOUNT: 'data.id' },
    show: (b) => ({
      data: pick(b.data, ['id', 'name', 'externalId']),
      nextActions: actions(b, ['createCart', 'invoices']),
    }),
  },
  {
    title: 'Create a cart with the product',
    prose:
      'The search result’s `createCart` action, plus the account: the cart is priced for this buyer ' +
      '(price rules, offers) as lines are added.',
    key: 'KEY',
    method: 'POST',
    path: '/carts',
    body:
      '{ "currency": "USD", "organizationId": "$ACCOUNT",\n' +
      '  "items": [{ "productId": "$WORKSHOP", "quantity": 1 }] }',
    ts: `const cart = await ok(
  api.POST('/api/v1/carts', {
    body: {
      currency: 'USD',
      organizationId: account.data.id,
      items: [{ productId: workshop.productId, quantity: 1 }],
    },
  }),
);`,
    tsResult: 'cart',
    status: 201,
    sets: { CART: 'data.id' },
    show: (b) => ({
      data: {
        ...pick(b.data, ['id', 'status', 'organizationId']),
        items: b.data.items.map((i: Json) => pick(i, ['productName', 'quantity', 'totalCents'])),
        totalCents: b.data.totalCents,
      },
      nextActions: actions(b, ['addItem', 'checkout']),
    }),
  },
  {
    title: 'Add another item',
    prose:
      'A second product (adding one already in the cart grows its line instead). Each change re-prices ' +
      'the whole cart.',
    key: 'KEY',
    method: 'POST',
    path: '/carts/$CART/items',
    body: '{ "productId": "0190a000-0000-7000-8000-000000000006", "quantity": 2 }',
    ts: `const filled = await ok(
  api.POST('/api/v1/carts/{id}/items', {
    params: { path: { id: cart.data.id } },
    body: { productId: '0190a000-0000-7000-8000-000000000006', quantity: 2 },
  }),
);`,
    tsResult: 'filled',
    status: 201,
    show: (b) => ({
      data: {
        items: b.data.items.map((i: Json) => pick(i, ['productName', 'quantity', 'totalCents'])),
        totalCents: b.data.totalCents,
      },
    }),
  },
  {
    title: 'Check out: create the order',
    prose:
      'The cart’s `checkout` action. The order takes the cart’s lines and buyer, and quotes passthrough ' +
      'charges now (the hardware key’s carrier fee: the total grows by it). With a linked billing account ' +
      'it is invoiced at once, and `payInvoice` carries the balance.',
    key: 'KEY',
    method: 'POST',
    path: '/orders',
    body: '{ "cartId": "$CART" }',
    ts: `const order = await ok(api.POST('/api/v1/orders', { body: { cartId: cart.data.id } }));`,
    tsResult: 'order',
    status: 201,
    sets: { ORDER: 'data.id', INVOICE: 'data.invoiceId', TOTAL: 'data.totalCents' },
    show: (b) => ({
      data: pick(b.data, ['id', 'orderNumber', 'status', 'totalCents', 'invoiceId', 'paymentStatus']),
      nextActions: actions(b, ['payInvoice']),
    }),
  },
  {
    title: 'Pay the invoice',
    prose:
      'Opens a payment session for the invoice’s balance. With a payment provider configured the buyer ' +
      'pays it there; the session then settles the invoice.',
    key: 'KEY',
    method: 'POST',
    path: '/invoices/$INVOICE/pay',
    body: '{ "accountId": "$BILLING", "amountCents": $TOTAL, "currency": "USD" }',
    ts: `const session = await ok(
  api.POST('/api/v1/invoices/{id}/pay', {
    params: { path: { id: order.data.invoiceId ?? '' } },
    body: { accountId: billing.data.id, amountCents: order.data.totalCents, currency: 'USD' },
  }),
);`,
    tsResult: 'session',
    status: 201,
    sets: { SESSION: 'data.id' },
    show: (b) => ({
      data: pick(b.data, ['id', 'status', 'amountCents', 'currency', 'invoiceId']),
      nextActions: actions(b, ['complete']),
    }),
  },
  {
    title: 'Complete the payment (sandbox)',
    prose:
      'In the sandbox, `complete` marks the session paid as if the provider confirmed it, and settles the ' +
      'invoice (`docs/provider-events.md` shows the provider’s own events instead).',
    key: 'KEY',
    method: 'POST',
    path: '/payments/$SESSION/complete',
    body: '{ "proof": "sandbox" }',
    ts: `const paid = await ok(
  api.POST('/api/v1/payments/{id}/complete', {
    params: { path: { id: session.data.id } },
    body: { proof: 'sandbox' },
  }),
);`,
    tsResult: 'paid',
    status: 200,
    show: (b) => ({ data: pick(b.data, ['id', 'status', 'amountCents']) }),
  },
  {
    title: 'Read the order',
    prose: 'Paid: the order offers no payment any more.',
    key: 'KEY',
    method: 'GET',
    path: '/orders/$ORDER',
    ts: `const paidOrder = await ok(api.GET('/api/v1/orders/{id}', { params: { path: { id: order.data.id } } }));`,
    tsResult: 'paidOrder',
    status: 200,
    show: (b) => ({
      data: pick(b.data, ['id', 'orderNumber', 'status', 'paymentStatus', 'paidCents']),
      nextActions: actions(b),
    }),
  },
  {
    title: 'And its invoice',
    prose: 'The account’s invoices, from its billing account: this one is paid.',
    key: 'KEY',
    method: 'GET',
    path: '/accounts/$ACCOUNT/invoices',
    ts: `const invoices = await ok(
  api.GET('/api/v1/accounts/{id}/invoices', {
    params: { path: { id: account.data.id } },
  }),
);`,
    tsResult: 'invoices',
    status: 200,
    show: (b) => ({
      data: b.data.map((i: Json) => pick(i, ['id', 'status', 'amountCents', 'balanceCents', 'currency'])),
    }),
  },
  {
    title: 'Subscribe to a plan',
    prose:
      'A subscription to the Pro plan for 5 seats, billed monthly in the account’s billing system from ' +
      'today.',
    key: 'KEY',
    method: 'POST',
    path: '/subscriptions',
    body: '{ "productId": "0190a000-0000-7000-8000-000000000002", "quantity": 5, "organizationId": "$ACCOUNT" }',
    ts: `const subscription = await ok(
  api.POST('/api/v1/subscriptions', {
    body: { productId: '0190a000-0000-7000-8000-000000000002', quantity: 5, organizationId: account.data.id },
  }),
);`,
    tsResult: 'subscription',
    status: 201,
    show: (b) => ({
      data: pick(b.data, ['id', 'status', 'productId', 'quantity', 'currentPeriodStart', 'currentPeriodEnd']),
    }),
  },
  {
    title: 'Refund part of the payment',
    prose: 'Refunds go back through the billing system; several partial refunds may follow one another.',
    key: 'KEY',
    method: 'POST',
    path: '/payments/$SESSION/refunds',
    body: '{ "amountCents": 1000, "reason": "requested_by_customer" }',
    ts: `const refund = await ok(
  api.POST('/api/v1/payments/{id}/refunds', {
    params: { path: { id: session.data.id } },
    body: { amountCents: 1000, reason: 'requested_by_customer' },
  }),
);`,
    tsResult: 'refund',
    status: 201,
    show: (b) => ({ data: pick(b.data, ['id', 'status', 'amountCents', 'reason', 'paymentSessionId']) }),
  },
  {
    title: 'Register a webhook',
    prose:
      'Events are POSTed, signed, to an `https` URL that resolves to public addresses (offline, or for a ' +
      'receiver on your machine, start the server with `WEBHOOK_ALLOW_PRIVATE_TARGETS=true`). Keep ' +
      '`secret`: it is shown once, and verifies each delivery (`examples/webhook-receiver.ts`).',
    key: 'KEY',
    method: 'POST',
    path: '/webhooks',
    body: '{ "url": "https://example.com/webhooks", "events": ["order.created", "payment.succeeded"] }',
    ts: `const webhook = await ok(
  api.POST('/api/v1/webhooks', {
    body: { url: 'https://example.com/webhooks', events: ['order.created', 'payment.succeeded'] },
  }),
);`,
    tsResult: 'webhook',
    status: 201,
    show: (b) => ({ data: pick(b.data, ['id', 'url', 'events', 'secret', 'active']) }),
  },
];
