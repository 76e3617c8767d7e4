import { afterAll, expect } from 'vitest';

// node-postgres queues a query sent on a connection that is still running one, and warns once per
// process; pg@9 will refuse it. Inside a transaction that means code ran statements concurrently
// on its one connection (a `Promise.all` over `tx`): run them one after another instead.
const overlapping: string[] = [];
process.on('warning', (warning) => {
  if (warning.message.includes('already executing a query'))
    overlapping.push(warning.stack ?? warning.message);
});

afterAll(async () => {
  await new Promise((resolve) => setImmediate(resolve)); // a warning is emitted on the next tick
  expect(overlapping, 'statements sent concurrently on one connection').toEqual([]);
});
