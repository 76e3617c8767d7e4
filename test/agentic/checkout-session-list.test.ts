import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { type AcpCatalog, acpCatalog, acpClient, noInterventions } from './acp-client.js';

// GET /checkout-sessions: the merchant's list of ACP and UCP sessions (the console's page).

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let catalog: AcpCatalog;
const clock = new ManualClock(new Date('2026-05-04T10:00:00Z'));
const ids: string[] = [];

beforeAll(async () => {
  t = await startApp({ clock });
  tenant = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
  catalog = await acpCatalog(t, tenant);
  const agent = acpClient(t, tenant.keys.commerce);
  for (let i = 0; i < 3; i++) {
    const res = await agent.create({
      currency: 'usd',
      line_items: [{ id: catalog.ebook.id }],
      capabilities: noInterventions,
    });
    expect(res.statusCode, res.body).toBe(201);
    ids.push(res.json().id);
    clock.advance(60 * 60 * 1000);
  }
});
afterAll(() => t.app.close());

const list = (query: string, key = tenant.keys.admin) => api(t, key).get(`/checkout-sessions${query}`);

describe('GET /checkout-sessions', () => {
  it('lists the sessions newest first, a page at a time', async () => {
    const first = await list('?limit=2');
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json();
    expect(body.data.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]]);
    expect(body.data[0]).toMatchObject({ protocol: 'acp', currency: 'USD', status: 'ready' });
    const next = await list(`?limit=2&cursor=${encodeURIComponent(body.meta.nextCursor)}`);
    expect(next.json().data.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
    expect(next.json().meta.nextCursor).toBeNull();
  });

  it('filters by the status as it reads now: expired open sessions are canceled', async () => {
    // Sessions live 6 hours: 6.5 hours after the first was created, only it has expired.
    clock.advance(3.5 * 60 * 60 * 1000);
    const canceled = await list('?status=canceled');
    expect(canceled.json().data.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
    expect(canceled.json().data[0].status).toBe('canceled');
    expect((await list('?status=ready')).json().data).toHaveLength(2);
    expect((await list('?protocol=ucp')).json().data).toEqual([]);
  });

  it('shows another tenant none of them, and refuses an unknown status naming the field', async () => {
    expect((await list('', other.keys.admin)).json().data).toEqual([]);
    // The tenant's every session is an operator's view: a read key reads one session, not the list.
    expect((await list('', tenant.keys.read)).statusCode).toBe(403);
    const bad = await list('?status=open');
    expect(bad.statusCode).toBe(400);
    expect(errorBody(bad).details?.[0]?.field).toBe('query.status');
  });
});
