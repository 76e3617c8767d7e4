import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { type Db, openPostgres } from '../../src/db/client.js';
import { ApiKeyResolver } from '../../src/modules/api-keys/index.js';
import { bearer, createTestTenant, errorBody, startApp, testDatabase, usingPostgres } from '../harness.js';

// Bursts: a cold key is read once however many requests carry it at once, and a pool whose
// connections all stay busy makes requests wait, then answer 503 `overloaded` (not "the database
// is unreachable") when the bounded wait runs out.

describe('key lookups under a burst', () => {
  it('are single-flight: 200 concurrent resolutions of one cold key make one database read', async () => {
    const database = await testDatabase();
    const t = await startApp({ database });
    try {
      const tenant = await createTestTenant(t.deps);
      let reads = 0;
      const counting = new Proxy(database.db, {
        get(target, prop, receiver) {
          if (prop === 'select') reads++;
          return Reflect.get(target, prop, receiver);
        },
      }) as Db;
      const resolver = new ApiKeyResolver(counting, systemClock, 5_000, pino({ level: 'silent' }));
      const keys = await Promise.all(Array.from({ length: 200 }, () => resolver.resolve(tenant.keys.read)));
      expect(new Set(keys.map((k) => k?.id))).toEqual(new Set([tenant.keyIds.read]));
      expect(reads).toBe(1);
      // A revocation meanwhile is not undone by a lookup that started before it.
      const racing = resolver.resolve(tenant.keys.admin);
      resolver.drop(tenant.keyIds.admin);
      await racing;
      reads = 0;
      await resolver.resolve(tenant.keys.admin);
      expect(reads).toBe(1);
    } finally {
      await t.app.close();
    }
  });
});

describe.skipIf(!usingPostgres)('a pool with every connection busy (PostgreSQL)', () => {
  const database = openPostgres({ url: process.env.DATABASE_URL as string, poolSize: 1, waitMs: 200 });
  afterAll(() => database.close());

  it('queues requests, and answers 503 overloaded with Retry-After only when the wait runs out', async () => {
    const t = await startApp({ database });
    try {
      const tenant = await createTestTenant(t.deps);
      const get = () =>
        t.app.inject({ method: 'GET', url: '/api/v1/orders', headers: bearer(tenant.keys.read) });
      expect((await get()).statusCode).toBe(200);
      // Short waits queue: three requests on one connection all succeed.
      const queued = await Promise.all([get(), get(), get()]);
      expect(queued.map((r) => r.statusCode)).toEqual([200, 200, 200]);
      // The only connection busy for longer than the wait: overloaded, not unreachable.
      // (Drizzle queries are lazy: `then` sends it now.)
      const busy = database.db.execute(sql`select pg_sleep(0.6)`).then(() => undefined);
      await new Promise((r) => setTimeout(r, 50));
      const refused = await get();
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(errorBody(refused)).toMatchObject({ code: 'overloaded' });
      await busy;
      expect((await get()).statusCode).toBe(200);
    } finally {
      await t.app.close();
    }
  });
});
