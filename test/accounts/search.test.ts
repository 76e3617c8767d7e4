import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { consoleApi, signedIn } from '../support/console.js';

describe('GET /accounts?q= (customers by name or email)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  // A word no other test's account holds: test files share the database.
  const word = `zq${randomUUID().slice(0, 8)}`;
  const ids: Record<string, string> = {};

  const create = async (who: TestTenant, name: string, email: string | null) => {
    const res = await api(t, who.keys.commerce).post('/accounts', { name, email });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.id as string;
  };
  const search = (q: string, who = tenant) =>
    api(t, who.keys.read).get(`/accounts?q=${encodeURIComponent(q)}`);
  const names = async (q: string, who = tenant) => {
    const res = await search(q, who);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().data as { name: string }[]).map((a) => a.name).sort();
  };

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
    other = await createTestTenant(t.deps);
    ids.initech = await create(tenant, `Initech ${word}`, `ap@initech-${word}.example`);
    ids.globex = await create(tenant, `Globex Corporation`, `billing@${word}-globex.example`);
    ids.percent = await create(tenant, `100% ${word}_parts`, null);
    ids.foreign = await create(other, `Initech ${word} (the other tenant's)`, `ap@initech-${word}.example`);
  });
  afterAll(() => t.app.close());

  it('finds a customer by a part of its name or email, in any case', async () => {
    expect(await names(`INITECH ${word.toUpperCase()}`)).toEqual([`Initech ${word}`]);
    expect(await names(`${word}-GLOBEX`)).toEqual(['Globex Corporation']);
    expect(await names(word)).toEqual([`100% ${word}_parts`, 'Globex Corporation', `Initech ${word}`]);
    // `%` and `_` are themselves, not wildcards.
    expect(await names(`% ${word}_`)).toEqual([`100% ${word}_parts`]);
    expect(await names(`${word}%parts`)).toEqual([]);
    expect(await names(`0 ${word}-parts`)).toEqual([]);
  });

  it('answers an empty list when nothing matches', async () => {
    const res = await search(`${word}-nobody`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([]);
  });

  it('never returns another tenant’s customers', async () => {
    expect(await names(`Initech ${word}`)).toEqual([`Initech ${word}`]);
    const mine = await search(`initech-${word}`);
    expect(mine.json().data.map((a: { id: string }) => a.id)).toEqual([ids.initech]);
    const theirs = await search(`initech-${word}`, other);
    expect(theirs.json().data.map((a: { id: string }) => a.id)).toEqual([ids.foreign]);
  });

  it('pages a search and combines it with the tag filter', async () => {
    await api(t, tenant.keys.commerce).put(`/accounts/${ids.globex}/tags/tier`, { value: 'gold' });
    const tagged = await api(t, tenant.keys.read).get(`/accounts?q=${word}&tag=tier:gold`);
    expect(tagged.json().data.map((a: { id: string }) => a.id)).toEqual([ids.globex]);
    const first = await api(t, tenant.keys.read).get(`/accounts?q=${word}&limit=2`);
    expect(first.json().data).toHaveLength(2);
    const cursor = first.json().meta.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const rest = await api(t, tenant.keys.read).get(`/accounts?q=${word}&limit=2&cursor=${cursor}`);
    expect(rest.json().data).toHaveLength(1);
    expect(rest.json().meta.nextCursor).toBeNull();
  });

  it('refuses a bad q with 400 naming the field', async () => {
    for (const [q, rule] of [
      ['', 'minLength'],
      ['x'.repeat(101), 'maxLength'],
    ] as const) {
      const res = await api(t, tenant.keys.read).get(`/accounts?q=${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(errorBody(res)).toMatchObject({ code: 'validation_failed' });
      expect(errorBody(res).details?.[0]).toMatchObject({ field: 'query.q', rule });
    }
    expect((await names('x'.repeat(100))).length).toBe(0);
  });

  it('is what the console searches with, for every role that reads', async () => {
    const viewer = await signedIn(t, tenant.tenantId, 'viewer');
    const res = await consoleApi(t, viewer).get(`/accounts?q=${word}-globex`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((a: { id: string }) => a.id)).toEqual([ids.globex]);
  });
});
