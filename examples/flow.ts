/**
 * The typical flow of SPEC.md section 1 with the typed client's resource methods: discover, create
 * an account, build a cart, order it, pay the order's invoice and complete the payment session,
 * following `nextActions` where the answer offers the next step.
 *
 *   COMMERCE_API_URL=http://127.0.0.1:3000 COMMERCE_API_KEY=cak_test_... npm run example:flow
 *
 * Without COMMERCE_API_KEY it reads the demo tenant's keys file (data/demo-keys.json, or
 * DEMO_KEYS_FILE) written by `npm start` on an empty database, and links the new account to the
 * demo's billing account so the order is invoiced. Exits non-zero on any unexpected answer.
 */
import { readFileSync } from 'node:fs';
import { ApiError, ConflictError, createCommerceClient } from '@commerce-agent/client';

const baseUrl = process.env.COMMERCE_API_URL ?? 'http://127.0.0.1:3000';
const demo = process.env.COMMERCE_API_KEY
  ? undefined
  : (JSON.parse(readFileSync(process.env.DEMO_KEYS_FILE ?? 'data/demo-keys.json', 'utf8')) as {
      keys: { commerce: string };
      billingAccountId?: string;
    });
const apiKey = process.env.COMMERCE_API_KEY ?? demo?.keys.commerce ?? '';
const billingAccountId = process.env.BILLING_ACCOUNT_ID ?? demo?.billingAccountId;

const client = createCommerceClient({ baseUrl, apiKey });

async function flow() {
  const manifest = await client.manifest.get();
  console.log(
    `getManifest: tenant ${manifest.data.tenant.name}, scopes ${manifest.data.key.scopes.join(', ')}`,
  );

  const catalog = await client.catalog.get();
  const product = catalog.data.find((p) => p.type === 'one_time') ?? catalog.data[0];
  if (!product) throw new Error('the catalog has no products');
  console.log(`getCatalog: buying ${product.name} (${product.id})`);

  // One account per billing account: when the demo's billing account is already linked, the 409
  // names the account that holds it in `nextActions` (getAccount), and the flow carries on with it.
  const account = await client.accounts
    .create({ name: 'Example Buyer Inc', ...(billingAccountId ? { externalId: billingAccountId } : {}) })
    .catch(async (err: unknown) => {
      const holder =
        err instanceof ConflictError ? err.nextActions.find((a) => a.rel === 'getAccount') : undefined;
      if (!holder) throw err;
      console.log('createAccount: 409, the billing account is linked already -> getAccount');
      return client.accounts.get(String(holder.arguments?.id));
    });
  console.log(`account ${account.data.id}`);

  const cart = await client.carts.create({ currency: 'USD' });
  const filled = await client.carts.addItem(cart.data.id, { productId: product.id, quantity: 2 });
  console.log(`addCartItem: cart total ${filled.data.totalCents} cents`);

  const order = await client.orders.create({ cartId: cart.data.id, organizationId: account.data.id });
  console.log(
    `createOrder: order ${order.data.orderNumber}, ${order.data.totalCents} cents, invoice ${order.data.invoiceId}`,
  );

  // Pay the order's invoice when it has one (nextAction `payInvoice`), otherwise open a session.
  const payment = {
    accountId: account.data.id,
    amountCents: order.data.totalCents,
    currency: order.data.currency,
  };
  const invoiceId = order.nextActions.some((a) => a.rel === 'payInvoice') ? order.data.invoiceId : null;
  const session = invoiceId
    ? await client.invoices.pay(invoiceId, payment)
    : await client.payments.createSession(payment);
  console.log(`${invoiceId ? 'payInvoice' : 'createPaymentSession'}: session ${session.data.id}`);

  const completed = await client.payments.completeSession(session.data.id, {});
  console.log(`completePaymentSession: payment ${completed.data.status}`);
  if (completed.data.status !== 'success') process.exit(1);
  console.log('flow complete');
}

await flow().catch((err: unknown) => {
  if (!(err instanceof ApiError)) throw err;
  console.error(`${err.name} ${err.status ?? ''} ${err.code}: ${err.message} (request ${err.requestId})`);
  process.exit(1);
});
