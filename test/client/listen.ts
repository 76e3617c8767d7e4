import type { TestApp } from '../harness.js';

/** Starts the app on a free port of 127.0.0.1 and returns its base URL, for the client's real HTTP calls. */
export async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('the app has no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

/** A one-time product priced per unit, for carts and orders. */
export const unitProduct = (name: string, unitPriceCents: number) => ({
  name,
  type: 'one_time' as const,
  currency: 'USD',
  charges: [{ name: 'Unit', chargeModel: 'per_unit' as const, tiers: [{ upTo: null, unitPriceCents }] }],
});
