import { afterAll, expect } from 'vitest';

// node-postgres queues a query sent on a connection that is still running one, and warns once per
// process; pg@9 will refuse it. Inside a transaction that means code ran statements concurrently
// on its one connection (a `Promise.all` over `tx`): run them one after another instead.
// Test files share a worker process (isolate: false) and this file runs again before each of
// them: one listener per process, and each file checks (and clears) what was seen during it.
const seen = globalThis as { __overlappingQueries?: string[] };
if (!seen.__overlappingQueries) {
  const list: string[] = [];
  seen.__overlappingQueries = list;
  process.on('warning', (warning) => {
    if (warning.message.includes('already executing a query')) list.push(warning.stack ?? warning.message);
  });
}
const overlapping = seen.__overlappingQueries;

afterAll(async () => {
  await new Promise((resolve) => setImmediate(resolve)); // a warning is emitted on the next tick
  expect(overlapping.splice(0), 'statements sent concurrently on one connection').toEqual([]);
});
