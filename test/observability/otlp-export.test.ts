import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TracesExporter } from '../../src/config.js';
import { startTracingFromEnv } from '../../src/observability/otel-sdk.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';

// The exporters the server builds from OTEL_* variables, against a local OTLP/HTTP receiver: what
// a collector gets, in protobuf (the default protocol) and in JSON.

interface Received {
  path: string;
  contentType: string;
  body: Buffer;
}
const received: Received[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    received.push({
      path: req.url ?? '',
      contentType: String(req.headers['content-type']),
      body: Buffer.concat(chunks),
    });
    res.writeHead(200).end();
  });
});
let t: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t = await startApp();
  tenant = await createTestTenant(t.deps);
});
afterAll(async () => {
  await t.app.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

/** One traced request with tracing started as `exporter`; what the receiver got once it is flushed. */
async function exportOneRequest(exporter: TracesExporter) {
  const { port } = receiver.address() as AddressInfo;
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `http://127.0.0.1:${port}/v1/traces`;
  const tracing = startTracingFromEnv(exporter, 'test');
  delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!tracing) throw new Error('tracing did not start');
  received.length = 0;
  const traceId = randomBytes(16).toString('hex');
  const res = await api(t, tenant.keys.read).get('/orders', {
    headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
  });
  expect(res.statusCode).toBe(200);
  await tracing.shutdown(); // sends what the batch holds
  expect(received.map((r) => r.path)).toEqual(['/v1/traces']);
  return { traceId, export: received[0] as Received };
}

describe('OTLP export over HTTP', () => {
  it('sends protobuf by default: the trace id as its 16 raw bytes, the span names as strings', async () => {
    const { traceId, export: sent } = await exportOneRequest('otlp-protobuf');
    expect(sent.contentType).toBe('application/x-protobuf');
    expect(sent.body.includes(Buffer.from(traceId, 'hex'))).toBe(true);
    expect(sent.body.includes(Buffer.from(traceId))).toBe(false); // not hex text: not JSON
    expect(sent.body.includes(Buffer.from('GET /api/v1/orders'))).toBe(true);
    expect(sent.body.includes(Buffer.from('db.query.summary'))).toBe(true);
  });

  it('sends JSON when the protocol says http/json: the request span and its statements in one trace', async () => {
    const { traceId, export: sent } = await exportOneRequest('otlp-json');
    expect(sent.contentType).toBe('application/json');
    const body = JSON.parse(sent.body.toString()) as {
      resourceSpans: { scopeSpans: { spans: { traceId: string; name: string }[] }[] }[];
    };
    const spans = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const ours = spans.filter((s) => s.traceId === traceId).map((s) => s.name);
    expect(ours).toContain('GET /api/v1/orders');
    expect(ours.some((name) => name.startsWith('db '))).toBe(true);
  });
});
