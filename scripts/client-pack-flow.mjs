// The typical flow with the packed client, run by scripts/client-pack-check.sh from an empty
// project where the tarball is installed: plain Node, the package's built files, nothing from the
// repository. Exits non-zero on any unexpected answer.
import { readFileSync } from 'node:fs';
import { ApiError, createCommerceClient, NotFoundError, verifyWebhook } from '@commerce-agent/client';
import { Webhook } from 'standardwebhooks';

const baseUrl = process.env.COMMERCE_API_URL;
const demo = JSON.parse(readFileSync(process.env.DEMO_KEYS_FILE, 'utf8'));
const client = createCommerceClient({ baseUrl, apiKey: demo.keys.commerce });

const manifest = await client.manifest.get();
console.log(`manifest: tenant ${manifest.data.tenant.name}`);
const catalog = await client.catalog.get();
const product = catalog.data.find((p) => p.type === 'one_time' && p.currency === 'USD');
if (!product) throw new Error('the demo catalog has no one-time USD product');

const account = await client.accounts.create({ name: 'Packed Client Buyer' });
console.log(`createAccount: ${account.data.id}`);
const cart = await client.carts.create({ currency: 'USD' });
await client.carts.addItem(cart.data.id, { productId: product.id, quantity: 2 });
const order = await client.orders.create({ cartId: cart.data.id, organizationId: account.data.id });
console.log(`createOrder: ${order.data.orderNumber}, ${order.data.totalCents} cents`);
await client.orders.create({
  organizationId: account.data.id,
  items: [{ productId: product.id, quantity: 1 }],
});

// Pages of one: the second order is on the second page.
const listed = [];
for await (const item of client.orders.list({ organizationId: account.data.id, limit: 1 }))
  listed.push(item.id);
if (listed.length !== 2 || !listed.includes(order.data.id)) {
  throw new Error(`for await over listOrders gave ${JSON.stringify(listed)}`);
}
console.log(`listOrders (for await, pages of 1): ${listed.length} orders`);

try {
  await client.orders.get('01900000-0000-7000-8000-000000000999');
  throw new Error('getOrder of a missing order succeeded');
} catch (err) {
  if (!(err instanceof NotFoundError) || !(err instanceof ApiError) || err.code !== 'not_found') throw err;
  console.log(`getOrder (missing): NotFoundError ${err.status} ${err.code}, request ${err.requestId}`);
}
// Webhook verification with the installed Standard Webhooks dependency: fresh accepted, 2020 refused.
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const body = JSON.stringify({ id: 'evt_1', event: 'order.created', timestamp: '', tenantId: 't1', data: {} });
const signedAt = (date) => ({
  'webhook-id': 'evt_1',
  'webhook-timestamp': String(Math.floor(date.getTime() / 1000)),
  'webhook-signature': new Webhook(secret).sign('evt_1', date, body),
});
verifyWebhook(body, signedAt(new Date()), [secret], { tenantId: 't1' });
try {
  verifyWebhook(body, signedAt(new Date('2020-01-01T00:00:00Z')), [secret], { tenantId: 't1' });
  throw new Error('a delivery signed in 2020 was accepted');
} catch (err) {
  if (err.reason !== 'stale_timestamp') throw err;
  console.log('verifyWebhook: fresh delivery accepted, 2020 delivery refused (stale_timestamp)');
}
console.log('client pack flow complete');
