import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  type CommerceClient,
  ConflictError,
  createCommerceClient,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
} from '../../packages/client/src/index.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { listen, unitProduct } from './listen.js';

const MISSING_ID = '01900000-0000-7000-8000-000000000999';

/** The error a call rejects with (fails the test when it resolves). */
async function rejection(call: PromiseLike<unknown>): Promise<ApiError> {
  const outcome = await call.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(outcome instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(outcome)}`);
  return outcome;
}

describe('typed client: resource methods against a running server', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let baseUrl: string;
  let admin: CommerceClient;
  let commerce: CommerceClient;
  const sent: Request[] = [];

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
    baseUrl = await listen(t);
    admin = createCommerceClient({ baseUrl, apiKey: tenant.keys.admin });
    commerce = createCommerceClient({
      baseUrl,
      apiKey: tenant.keys.commerce,
      fetch: (request) => {
        sent.push(request.clone());
        return fetch(request);
      },
    });
  });
  afterAll(() => t.app.close());

  it('runs the flow by resource: product, account, cart, item, order, read back', async () => {
    const product = await admin.admin.products.create(unitProduct('Widget', 1500));
    expect(product.data).toMatchObject({ name: 'Widget', type: 'one_time', currency: 'USD' });

    const account = await commerce.accounts.create({ name: 'Resource Buyer' });
    const cart = await commerce.carts.create({ currency: 'USD' });
    const filled = await commerce.carts.addItem(cart.data.id, { productId: product.data.id, quantity: 2 });
    expect(filled.data.totalCents).toBe(3000);

    const order = await commerce.orders.create({ cartId: cart.data.id, organizationId: account.data.id });
    expect(order.data).toMatchObject({ totalCents: 3000, currency: 'USD', organizationId: account.data.id });
    expect(order.nextActions.map((a) => a.rel)).toContain('self');

    const read = await commerce.orders.get(order.data.id);
    expect(read.data.id).toBe(order.data.id);
    const last = sent.at(-1);
    expect(last?.method).toBe('GET');
    expect(new URL(last?.url ?? '').pathname).toBe(`/api/v1/orders/${order.data.id}`);
  });

  it('walks every page of a list with for await, following meta.nextCursor with the same filters', async () => {
    const product = await admin.admin.products.create(unitProduct('Paged widget', 100));
    const account = await commerce.accounts.create({ name: 'Paged Buyer' });
    const created: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const order = await commerce.orders.create({
        organizationId: account.data.id,
        items: [{ productId: product.data.id, quantity: i }],
      });
      created.push(order.data.id);
    }

    sent.length = 0;
    const seen: string[] = [];
    for await (const order of commerce.orders.list({ organizationId: account.data.id, limit: 2 })) {
      expect(order.organizationId).toBe(account.data.id);
      seen.push(order.id);
    }
    expect(seen.sort()).toEqual([...created].sort());
    // Three pages of at most two, each with the filter; the later ones with the previous page's cursor.
    const queries = sent.map((r) => new URL(r.url).searchParams);
    expect(queries).toHaveLength(3);
    expect(queries.map((q) => q.get('organizationId'))).toEqual(Array(3).fill(account.data.id));
    expect(queries.map((q) => q.get('limit'))).toEqual(['2', '2', '2']);
    expect(queries[0]?.has('cursor')).toBe(false);
    expect(queries[1]?.get('cursor')).toBeTruthy();

    // Awaited, a list call is the one request: here the first page and where the next starts.
    const page = await commerce.orders.list({ organizationId: account.data.id, limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.meta?.nextCursor).toEqual(expect.any(String));
    // Without a limit, iterating asks for pages of 100.
    sent.length = 0;
    expect(await commerce.orders.list({ organizationId: account.data.id }).toArray()).toHaveLength(5);
    expect(sent.map((r) => new URL(r.url).searchParams.get('limit'))).toEqual(['100']);
  });

  it('throws an error class per status family with code, details, requestId and nextActions', async () => {
    const notFound = await rejection(commerce.orders.get(MISSING_ID));
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(notFound).toMatchObject({ status: 404, code: 'not_found' });
    expect(notFound.requestId).toBe(notFound.headers?.get('x-request-id'));

    const invalid = await rejection(commerce.carts.create({ currency: 'usd' }));
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(invalid.details).toEqual([expect.objectContaining({ field: 'currency', rule: 'pattern' })]);

    const anonymous = createCommerceClient({ baseUrl, apiKey: 'cak_test_not_a_real_key' });
    const unauthenticated = await rejection(anonymous.accounts.list());
    expect(unauthenticated).toBeInstanceOf(AuthenticationError);
    expect(unauthenticated.status).toBe(401);

    const reader = createCommerceClient({ baseUrl, apiKey: tenant.keys.read });
    const forbidden = await rejection(reader.accounts.create({ name: 'Not Allowed Co' }));
    expect(forbidden).toBeInstanceOf(PermissionError);
    expect(forbidden.status).toBe(403);

    // A checked-out cart takes no items: 409, and the body says how to go on (createCart).
    const product = await admin.admin.products.create(unitProduct('Conflict widget', 100));
    const account = await commerce.accounts.create({ name: 'Conflict Buyer' });
    const cart = await commerce.carts.create({ currency: 'USD' });
    await commerce.carts.addItem(cart.data.id, { productId: product.data.id });
    await commerce.orders.create({ cartId: cart.data.id, organizationId: account.data.id });
    const conflict = await rejection(commerce.carts.addItem(cart.data.id, { productId: product.data.id }));
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, code: 'cart_checked_out' });
    expect(conflict.nextActions.map((a) => a.rel)).toContain('createCart');
  });

  it('sends the Idempotency-Key given per call; reused with another body it is a 422', async () => {
    const first = await commerce.accounts.create({ name: 'Keyed Co' }, { idempotencyKey: 'resource-key-1' });
    const again = await commerce.accounts.create({ name: 'Keyed Co' }, { idempotencyKey: 'resource-key-1' });
    expect(again.data.id).toBe(first.data.id);
    const reused = await rejection(
      commerce.accounts.create({ name: 'Other Co' }, { idempotencyKey: 'resource-key-1' }),
    );
    expect(reused).toBeInstanceOf(InvalidRequestError);
    expect(reused.status).toBe(422);
    expect(reused.code).toBe('idempotency_conflict');
  });
});
