/**
 * The typical flow of SPEC.md section 1 with the typed client: discover, create an account, build a
 * cart, order it, pay the order's invoice and complete the payment session, following
 * `nextActions` from one step to the next.
 *
 *   COMMERCE_API_URL=http://127.0.0.1:3000 COMMERCE_API_KEY=cak_test_... npm run example:flow
 *
 * Without COMMERCE_API_KEY it reads the demo tenant's keys file (data/demo-keys.json, or
 * DEMO_KEYS_FILE) written by `npm start` on an empty database, and links the new account to the
 * demo's billing account so the order is invoiced. Exits non-zero on any unexpected answer.
 */
import { readFileSync } from 'node:fs';
import { type CallResult, createCommerceClient, type Envelope } from '@commerce-agent/client';

const baseUrl = process.env.COMMERCE_API_URL ?? 'http://127.0.0.1:3000';
const demo = process.env.COMMERCE_API_KEY
  ? undefined
  : (JSON.parse(readFileSync(process.env.DEMO_KEYS_FILE ?? 'data/demo-keys.json', 'utf8')) as {
      keys: { commerce: string };
      billingAccountId?: string;
    });
const apiKey = process.env.COMMERCE_API_KEY ?? demo?.keys.commerce ?? '';
const billingAccountId = process.env.BILLING_ACCOUNT_ID ?? demo?.billingAccountId;

const api = createCommerceClient({ baseUrl, apiKey });

/** The envelope's data of a successful call; anything else ends the script with the error body. */
function ok<T>(step: string, result: CallResult<T>): NonNullable<T> {
  if (result.error || result.data === undefined) {
    console.error(`${step}: HTTP ${result.response.status}`, JSON.stringify(result.error));
    process.exit(1);
  }
  console.log(`${step}: HTTP ${result.response.status}`);
  return result.data as NonNullable<T>;
}

const manifest = ok('getManifest', await api.GET('/api/v1/manifest'));
console.log(`  tenant ${manifest.data.tenant.name}, scopes ${manifest.data.key.scopes.join(', ')}`);

const catalog = ok('getCatalog', await api.GET('/api/v1/catalog'));
const product = catalog.data.find((p) => p.type === 'one_time') ?? catalog.data[0];
if (!product) throw new Error('the catalog has no products');
console.log(`  buying ${product.name} (${product.id})`);

// One account per billing account: when the demo's billing account is already linked, the 409
// names the account that holds it in `nextActions` (getAccount), and the flow carries on with it.
const created = await api.POST('/api/v1/accounts', {
  body: { name: 'Example Buyer Inc', ...(billingAccountId ? { externalId: billingAccountId } : {}) },
});
const holder =
  created.response.status === 409
    ? created.error?.nextActions?.find((a) => a.rel === 'getAccount')
    : undefined;
const account = holder
  ? ok(
      'createAccount (409: linked already) -> getAccount',
      await api.GET('/api/v1/accounts/{id}', {
        params: { path: { id: String(holder.arguments?.id) } },
      }),
    )
  : ok('createAccount', created);

const cart = ok('createCart', await api.POST('/api/v1/carts', { body: { currency: 'USD' } }));
const filled = ok(
  'addCartItem',
  await api.POST('/api/v1/carts/{id}/items', {
    params: { path: { id: cart.data.id } },
    body: { productId: product.id, quantity: 2 },
  }),
);
console.log(`  cart total ${filled.data.totalCents} cents`);

const order = ok(
  'createOrder',
  await api.POST('/api/v1/orders', { body: { cartId: cart.data.id, organizationId: account.data.id } }),
);
console.log(
  `  order ${order.data.orderNumber}, ${order.data.totalCents} cents, invoice ${order.data.invoiceId}`,
);

// Pay the order's invoice when it has one (nextAction `payInvoice`), otherwise open a session.
const paying = order.nextActions.some((a) => a.rel === 'payInvoice')
  ? await api.followNextAction<Envelope<{ id: string }>>(order, 'payInvoice', {
      body: { accountId: account.data.id, amountCents: order.data.totalCents, currency: order.data.currency },
    })
  : await api.POST('/api/v1/payments', {
      body: { accountId: account.data.id, amountCents: order.data.totalCents, currency: order.data.currency },
    });
const session = ok('payInvoice / createPaymentSession', paying);

const completed = ok(
  'completePaymentSession',
  await api.followNextAction<{ data: { status: string } }>(session, 'complete'),
);
console.log(`  payment ${completed.data.status}`);
if (completed.data.status !== 'success') process.exit(1);
console.log('flow complete');
