import { randomBytes, randomUUID } from 'node:crypto';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeliveryWorker } from '../../src/modules/webhooks/index.js';
import type { Tracing } from '../../src/observability/otel-sdk.js';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { linkedBillingAccount } from '../support/billing-fixtures.js';
import { waitFor } from '../support/wait.js';
import { startReceiver, TEST_CA_FILE } from '../support/webhook-receiver.js';
import { ownDatabase } from './own-database.js';
import { sampleValue } from './prometheus-text.js';

// The spans the server makes, as a collector would get them, whichever pipeline makes them:
// tracing.test.ts runs these through our span writer (the default, OTLP protobuf) with its
// requests decoded back, tracing-sdk.test.ts through the SDK (OTLP JSON, the console) with its
// in-memory exporter.

export interface TracePipeline {
  tracing: Tracing;
  /** Every span finished and handed to the exporter so far. */
  finishedSpans(): ReadableSpan[];
}

export function describeTracing(pipelineName: string, startPipeline: () => TracePipeline) {
  const TOKEN = `metrics-${randomUUID()}`;
  let pipeline: TracePipeline;
  let t: TestApp;
  let tenant: TestTenant;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    pipeline = startPipeline();
    const own = await ownDatabase();
    drop = own.drop;
    t = await startApp({
      database: own.database,
      config: { metricsToken: TOKEN, webhookAllowPrivateTargets: true, webhookCaFile: TEST_CA_FILE },
    });
    tenant = await createTestTenant(t.deps);
  });
  afterAll(async () => {
    await t.app.close();
    await drop();
    // Off again for the files that run after this one in the same process.
    await pipeline.tracing.shutdown();
  });

  const spansOf = (traceId: string) =>
    pipeline.finishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
  const serverSpan = (spans: ReadableSpan[], operationId: string) => {
    const found = spans.filter((s) => s.attributes['commerce.operation_id'] === operationId);
    expect(found).toHaveLength(1);
    return found[0] as ReadableSpan;
  };

  describe(`${pipelineName}: a span per request, children for the database and the billing adapter`, () => {
    it('continues the caller’s traceparent: the request span’s parent is its span, with operation, tenant and status', async () => {
      await linkedBillingAccount(t, tenant); // the built-in engine active, for the call below
      const traceId = randomBytes(16).toString('hex');
      const callerSpanId = randomBytes(8).toString('hex');
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/accounts/ba_${'0'.repeat(20)}`,
        headers: { ...bearer(tenant.keys.read), traceparent: `00-${traceId}-${callerSpanId}-01` },
      });
      expect(res.statusCode).toBe(404);
      const spans = spansOf(traceId);
      const request = serverSpan(spans, 'getAccount');
      expect(parentOf(request)).toBe(callerSpanId);
      expect(request.name).toBe('GET /api/v1/accounts/:id');
      expect(request.attributes).toMatchObject({
        'http.request.method': 'GET',
        'http.route': '/api/v1/accounts/:id',
        'http.response.status_code': 404,
        'commerce.tenant_id': tenant.tenantId,
        'error.type': 'not_found',
      });

      const billing = spans.filter((s) => s.name === 'billing builtin.getAccount');
      expect(billing).toHaveLength(1);
      expect(parentOf(billing[0] as ReadableSpan)).toBe(request.spanContext().spanId);
      expect(billing[0]?.attributes['commerce.billing.outcome']).toBe('failure');

      // The key lookup and the billing integration's read: statements of this request, its children.
      const statements = spans.filter((s) => s.name.startsWith('db '));
      expect(statements.length).toBeGreaterThan(0);
      const ids = new Set(spans.map((s) => s.spanContext().spanId));
      for (const s of statements) expect(ids.has(parentOf(s) as string), s.name).toBe(true);
      expect(statements.some((s) => parentOf(s) === request.spanContext().spanId)).toBe(true);
      for (const s of statements) {
        const text = s.attributes['db.query.text'] as string;
        const verb = s.name.slice('db '.length);
        expect(text.trimStart().toLowerCase().startsWith(verb), text).toBe(true);
        // The summary is the verb and the tables named: the key lookup reads api_keys.
        expect(s.attributes['db.query.summary']).toMatch(new RegExp(`^${verb.toUpperCase()}( [a-z_0-9]+)*$`));
        expect(s.attributes['db.system.name']).toBe('postgresql');
      }
      expect(statements.some((s) => String(s.attributes['db.query.summary']).includes('api_keys'))).toBe(
        true,
      );
    });

    it('starts a trace of its own for a request without traceparent', async () => {
      const res = await api(t, tenant.keys.read).get('/orders');
      expect(res.statusCode).toBe(200);
      const request = pipeline
        .finishedSpans()
        .filter((s) => s.attributes['commerce.operation_id'] === 'listOrders')
        .at(-1) as ReadableSpan;
      expect(parentOf(request)).toBeUndefined();
      expect(request.attributes['http.response.status_code']).toBe(200);
    });
    it('exports nothing for a request whose caller did not sample it, neither its span nor its statements', async () => {
      const traceId = randomBytes(16).toString('hex');
      const res = await api(t, tenant.keys.read).get('/orders', {
        headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-00` },
      });
      expect(res.statusCode).toBe(200);
      // The same request sampled is traced (the previous tests): unsampled, not one span of it.
      expect(spansOf(traceId)).toEqual([]);
    });
  });

  describe(`tracing and metrics of webhook deliveries (${pipelineName})`, () => {
    it('sends a delivery in a client span and counts it succeeded, with its latency', async () => {
      const receiver = await startReceiver();
      const stopWorker = startDeliveryWorker(t.deps);
      try {
        const scrape = async () =>
          (await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) })).body;
        const before = await scrape();
        const hook = await api(t, tenant.keys.admin).post('/webhooks', {
          url: receiver.url,
          events: ['account.created'],
        });
        expect(hook.statusCode).toBe(201);
        expect((await api(t, tenant.keys.commerce).post('/accounts', { name: 'Delivered' })).statusCode).toBe(
          201,
        );
        await waitFor(
          () => pipeline.finishedSpans().some((s) => s.name === 'webhook send'),
          'the delivery’s span',
        );
        const send = pipeline.finishedSpans().find((s) => s.name === 'webhook send') as ReadableSpan;
        expect(send.attributes).toMatchObject({
          'server.address': 'localhost',
          'http.response.status_code': 200,
          'commerce.webhook.outcome': 'succeeded',
        });
        expect(receiver.receipts).toHaveLength(1);
        const after = await scrape();
        expect(sampleValue(after, 'webhook_deliveries_total', { outcome: 'succeeded' })).toBe(
          sampleValue(before, 'webhook_deliveries_total', { outcome: 'succeeded' }) + 1,
        );
        expect(sampleValue(after, 'webhook_delivery_duration_seconds_count', { outcome: 'succeeded' })).toBe(
          sampleValue(before, 'webhook_delivery_duration_seconds_count', { outcome: 'succeeded' }) + 1,
        );
      } finally {
        await stopWorker();
        await receiver.close();
      }
    });
  });

  describe(`tracing an MCP tool call (${pipelineName})`, () => {
    it('makes the operation a tool call runs a child of the /mcp request, counted once by the rate limit', async () => {
      const remaining = (r: { headers: Record<string, unknown> }) =>
        Number(r.headers['x-ratelimit-remaining']);
      const before = remaining(await api(t, tenant.keys.read).get('/orders'));
      const traceId = randomBytes(16).toString('hex');
      const callerSpanId = randomBytes(8).toString('hex');
      const res = await t.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          ...bearer(tenant.keys.read),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          traceparent: `00-${traceId}-${callerSpanId}-01`,
        },
        payload: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'listOrders', arguments: {} },
        },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().result._meta.httpStatus).toBe(200);
      const spans = spansOf(traceId);
      const mcp = serverSpan(spans, '/mcp');
      expect(parentOf(mcp)).toBe(callerSpanId);
      const tool = serverSpan(spans, 'listOrders');
      expect(parentOf(tool)).toBe(mcp.spanContext().spanId);
      expect(tool.attributes['http.response.status_code']).toBe(200);
      // The request the tool call forwards runs in the span's context and still knows it was counted.
      expect(remaining(res)).toBe(before - 1);
      expect(remaining(await api(t, tenant.keys.read).get('/orders'))).toBe(before - 2);
    });
  });
}
