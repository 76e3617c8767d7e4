/**
 * Type-level tests of the resource methods, checked by `tsc --noEmit -p .` (never run): each
 * `@ts-expect-error` line must be an error, so tsc fails if the types stop catching it.
 */
import type { CommerceClient } from '../../packages/client/src/index.js';

export async function resourceMethodTypes(client: CommerceClient): Promise<void> {
  const cart = await client.carts.create({ currency: 'USD' });
  const account = await client.accounts.create({ name: 'Typed Co' });
  const order = await client.orders.create({ cartId: cart.data.id, organizationId: account.data.id });
  const total: number = order.data.totalCents;
  void total;

  // @ts-expect-error a misspelled body field (organisationId) is not in the exact body type
  await client.orders.create({ cartId: cart.data.id, organisationId: account.data.id });
  // @ts-expect-error a required body field (name) is missing
  await client.accounts.create({});
  // @ts-expect-error a field of the wrong type
  await client.carts.addItem(cart.data.id, { productId: 'p', quantity: 'two' });
  // @ts-expect-error a misspelled query filter
  client.orders.list({ organisationId: account.data.id });
  // @ts-expect-error the path parameter is required
  await client.orders.get();
  // @ts-expect-error no such method: the names come from the operationIds
  await client.orders.remove(order.data.id);

  // The path calls too: their init is typed by the path, not inferred from the argument.
  // @ts-expect-error a misspelled body field in a path call
  await client.POST('/api/v1/orders', { body: { cartId: cart.data.id, organisationId: account.data.id } });
  const read = await client.GET('/api/v1/orders/{id}', { params: { path: { id: order.data.id } } });
  const readTotal: number | undefined = read.data?.data.totalCents;
  void readTotal;

  for await (const listed of client.orders.list({ limit: 10 })) {
    const id: string = listed.id;
    // @ts-expect-error list items are typed (an order has no `sku`)
    void listed.sku;
    void id;
  }
}
