import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Database } from '../../src/db/client.js';
import { acpCatalog, acpClient, noInterventions } from '../agentic/acp-client.js';
import {
  bearer,
  createTestTenant,
  errorBody,
  startApp,
  type TestApp,
  type TestTenant,
  usingPostgres,
} from '../harness.js';
import { api } from '../support/api.js';
import { linkedBillingAccount } from '../support/billing-fixtures.js';
import { adminPost } from '../support/catalog-fixtures.js';
import { ownDatabase } from './own-database.js';
import { families, sampleValue } from './prometheus-text.js';

const TOKEN = `metrics-${randomUUID()}`;
const clock = new ManualClock();
let t: TestApp;
let tenant: TestTenant;
let database: Database;
let dropDatabase: () => Promise<void>;
let workshop: { id: string };

beforeAll(async () => {
  // A database of this file's own: the gauges count every tenant's rows, exactly.
  ({ database, drop: dropDatabase } = await ownDatabase());
  t = await startApp({ database, clock, config: { metricsToken: TOKEN, webhookAllowPrivateTargets: true } });
  tenant = await createTestTenant(t.deps);
  workshop = await adminPost(t, tenant, 'products', {
    name: 'Workshop',
    type: 'one_time',
    currency: 'USD',
    charges: [{ name: 'Seat', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 2500 }] }],
  });
});
afterAll(async () => {
  await t.app.close();
  await dropDatabase();
});

/** A scrape with the operator's token; the database figures are read afresh (the clock moved past their cache). */
async function scrape(): Promise<string> {
  clock.advance(60_000);
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return res.body;
}

const createOrder = (idempotencyKey?: string) =>
  api(t, tenant.keys.commerce).post(
    '/orders',
    { items: [{ productId: workshop.id, quantity: 2 }] },
    idempotencyKey ? { idempotencyKey } : {},
  );

describe('GET /metrics: who may read it', () => {
  it('answers the operator token with every family; no token 401, a tenant admin key 403, a wrong token 401', async () => {
    const text = await scrape();
    expect(families(text)).toMatchObject({
      http_requests_total: 'counter',
      http_request_duration_seconds: 'histogram',
      rate_limit_rejections_total: 'counter',
      idempotency_replays_total: 'counter',
      webhook_queue_depth: 'gauge',
      webhook_queue_oldest_age_seconds: 'gauge',
      webhook_deliveries_total: 'counter',
      webhook_delivery_duration_seconds: 'histogram',
      billing_adapter_calls_total: 'counter',
      billing_adapter_call_duration_seconds: 'histogram',
      intents_open: 'gauge',
      intents_open_oldest_age_seconds: 'gauge',
      checkout_sessions: 'gauge',
      db_pool_connections: 'gauge',
    });

    const none = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(errorBody(none)).toMatchObject({ code: 'unauthorized' });
    expect(errorBody(none).error).toContain('METRICS_TOKEN');

    // An admin key is one tenant's admin: the figures are every tenant's.
    const admin = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(tenant.keys.admin) });
    expect(admin.statusCode).toBe(403);
    expect(errorBody(admin)).toMatchObject({ code: 'forbidden' });
    expect(errorBody(admin).error).toContain('METRICS_TOKEN');

    const wrong = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(`${TOKEN}x`) });
    expect(wrong.statusCode).toBe(401);
    expect(errorBody(wrong)).toMatchObject({ code: 'unauthorized', error: 'Wrong metrics token' });
  });

  it('is off without METRICS_TOKEN: 404 naming the variable', async () => {
    const off = await startApp({ database });
    try {
      const res = await off.app.inject({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) });
      expect(res.statusCode).toBe(404);
      expect(errorBody(res)).toMatchObject({ code: 'not_found' });
      expect(errorBody(res).error).toContain('METRICS_TOKEN');
    } finally {
      await off.app.close();
    }
  });
});

describe('GET /metrics: the figures move with real requests', () => {
  it('counts POST /orders as createOrder 201 with its latency, and a replay of it', async () => {
    const created = { operation: 'createOrder', method: 'POST', status: '201' };
    const before = await scrape();
    const key = randomUUID();
    const first = await createOrder(key);
    expect(first.statusCode).toBe(201);
    const mid = await scrape();
    expect(sampleValue(mid, 'http_requests_total', created)).toBe(
      sampleValue(before, 'http_requests_total', created) + 1,
    );
    expect(sampleValue(mid, 'http_request_duration_seconds_count', created)).toBe(
      sampleValue(before, 'http_request_duration_seconds_count', created) + 1,
    );
    expect(sampleValue(mid, 'http_request_duration_seconds_sum', created)).toBeGreaterThan(
      sampleValue(before, 'http_request_duration_seconds_sum', created),
    );
    expect(sampleValue(mid, 'idempotency_replays_total', { operation: 'createOrder' })).toBe(
      sampleValue(before, 'idempotency_replays_total', { operation: 'createOrder' }),
    );

    const replay = await createOrder(key);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['x-idempotency-replayed']).toBe('true');
    const after = await scrape();
    expect(sampleValue(after, 'idempotency_replays_total', { operation: 'createOrder' })).toBe(
      sampleValue(mid, 'idempotency_replays_total', { operation: 'createOrder' }) + 1,
    );
    expect(sampleValue(after, 'http_requests_total', created)).toBe(
      sampleValue(mid, 'http_requests_total', created) + 1,
    );
  });

  it('counts a 429 as a rate-limit rejection of the key', async () => {
    const limited = await createTestTenant(t.deps, { rateTier: 'standard' });
    const before = await scrape();
    let status = 0;
    let sent = 0;
    while (status !== 429 && sent < 100) {
      status = (await api(t, limited.keys.read).get('/orders')).statusCode;
      sent++;
    }
    expect(status).toBe(429);
    expect(sent).toBe(61); // the standard tier's 60 a minute, then the refusal
    const after = await scrape();
    expect(sampleValue(after, 'rate_limit_rejections_total', { bucket: 'key' })).toBe(
      sampleValue(before, 'rate_limit_rejections_total', { bucket: 'key' }) + 1,
    );
    expect(sampleValue(after, 'http_requests_total', { operation: 'listOrders', status: '429' })).toBe(
      sampleValue(before, 'http_requests_total', { operation: 'listOrders', status: '429' }) + 1,
    );
  });

  it('counts billing adapter calls by outcome: a found account ok, an unknown one a failure', async () => {
    const calls = (outcome: string) => ({ adapter: 'builtin', method: 'getAccount', outcome });
    const timed = { adapter: 'builtin', method: 'getAccount' };
    const { billingId } = await linkedBillingAccount(t, tenant);
    const before = await scrape();
    const reader = api(t, tenant.keys.read);
    expect((await reader.get(`/accounts/${billingId}`)).statusCode).toBe(200);
    expect((await reader.get(`/accounts/ba_${'0'.repeat(20)}`)).statusCode).toBe(404);
    const after = await scrape();
    expect(sampleValue(after, 'billing_adapter_calls_total', calls('ok'))).toBe(
      sampleValue(before, 'billing_adapter_calls_total', calls('ok')) + 1,
    );
    expect(sampleValue(after, 'billing_adapter_calls_total', calls('failure'))).toBe(
      sampleValue(before, 'billing_adapter_calls_total', calls('failure')) + 1,
    );
    expect(sampleValue(after, 'billing_adapter_call_duration_seconds_count', timed)).toBe(
      sampleValue(before, 'billing_adapter_call_duration_seconds_count', timed) + 2,
    );
  });

  it('reads the webhook queue, open intents and checkout sessions from the database on scrape', async () => {
    const before = await scrape();
    const webhook = await api(t, tenant.keys.admin).post('/webhooks', {
      url: 'https://localhost:9/metrics-hook',
      events: ['order.created'],
    });
    expect(webhook.statusCode).toBe(201);
    expect((await createOrder()).statusCode).toBe(201);
    clock.advance(30_000);
    const after = await scrape();
    // No worker runs here: the delivery waits, 30 s after the order (+ the scrape's minute).
    expect(sampleValue(after, 'webhook_queue_depth')).toBe(sampleValue(before, 'webhook_queue_depth') + 1);
    expect(sampleValue(after, 'webhook_queue_oldest_age_seconds')).toBeGreaterThanOrEqual(90);
    expect(sampleValue(after, 'intents_open')).toBe(0);
    expect(sampleValue(after, 'intents_open_oldest_age_seconds')).toBe(0);
    // PGlite has one connection and no pool: the family is declared, without samples.
    if (usingPostgres)
      expect(sampleValue(after, 'db_pool_connections', { state: 'size' })).toBeGreaterThan(0);
    else expect(after).not.toMatch(/^db_pool_connections\{/m);
  });

  it('counts checkout sessions by status as they move', async () => {
    const catalog = await acpCatalog(t, tenant);
    const agent = acpClient(t, tenant.keys.commerce);
    const before = await scrape();
    const created = await agent.create({
      currency: 'usd',
      line_items: [{ id: catalog.ebook.id }],
      capabilities: noInterventions,
    });
    expect(created.statusCode, created.body).toBe(201);
    const open = await scrape();
    expect(sampleValue(open, 'checkout_sessions', { status: 'ready' })).toBe(
      sampleValue(before, 'checkout_sessions', { status: 'ready' }) + 1,
    );
    expect((await agent.cancel(created.json().id)).statusCode).toBe(200);
    const canceled = await scrape();
    expect(sampleValue(canceled, 'checkout_sessions', { status: 'ready' })).toBe(
      sampleValue(before, 'checkout_sessions', { status: 'ready' }),
    );
    expect(sampleValue(canceled, 'checkout_sessions', { status: 'canceled' })).toBe(
      sampleValue(before, 'checkout_sessions', { status: 'canceled' }) + 1,
    );
  });
});
