// Type-checked by scripts/client-pack-check.sh inside an empty project where the packed client is
// installed: the published declarations give typed results, and a misspelled body field is an error.
import { type ApiError, createCommerceClient, NotFoundError } from '@commerce-agent/client';

const client = createCommerceClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'cak_test_x' });

export async function typedFlow(): Promise<number> {
  const cart = await client.carts.create({ currency: 'USD' });
  // @ts-expect-error a misspelled body field (organisationId)
  await client.orders.create({ cartId: cart.data.id, organisationId: 'a' });
  // @ts-expect-error the same in a path call
  await client.POST('/api/v1/orders', { body: { cartId: cart.data.id, organisationId: 'a' } });
  const order = await client.orders.create({ cartId: cart.data.id });
  for await (const listed of client.orders.list({ limit: 10 })) {
    const id: string = listed.id;
    void id;
  }
  try {
    await client.orders.get(order.data.id);
  } catch (err) {
    if (err instanceof NotFoundError) return (err satisfies ApiError).status ?? 0;
  }
  return order.data.totalCents;
}
