import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TracesExporter } from '../../src/config.js';
import { startTracingFromEnv } from '../../src/observability/otel-sdk.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { decodeExport } from './otlp-decode.js';

// The exporters the server builds from OTEL_* variables, against a local OTLP/HTTP receiver: what
// a collector gets, in protobuf (the default protocol, our span writer) and in JSON (the SDK).

interface Received {
  path: string;
  contentType: string;
  apiKey: string | undefined;
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
      apiKey: req.headers['x-api-key'] as string | undefined,
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
  process.env.OTEL_EXPORTER_OTLP_HEADERS = 'x-api-key=collector-secret';
  const tracing = startTracingFromEnv(exporter, 'test');
  delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
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
  it('sends protobuf by default, through our span writer: the request span and its statements in one trace', async () => {
    const { traceId, export: sent } = await exportOneRequest('otlp-protobuf');
    expect(sent.contentType).toBe('application/x-protobuf');
    expect(sent.apiKey).toBe('collector-secret'); // OTEL_EXPORTER_OTLP_HEADERS
    const decoded = decodeExport(sent.body);
    expect(decoded.resource.attributes).toMatchObject({
      'service.name': 'commerce-agent-api',
      'service.version': 'test',
    });
    expect(decoded.scope).toEqual({ name: 'commerce-agent-api' });
    const ours = decoded.spans.filter((s) => s.spanContext().traceId === traceId);
    const request = ours.find((s) => s.name === 'GET /api/v1/orders') as ReadableSpan;
    expect(request.attributes).toMatchObject({
      'commerce.operation_id': 'listOrders',
      'http.response.status_code': 200,
      'commerce.tenant_id': tenant.tenantId,
    });
    const statements = ours.filter((s) => s.name.startsWith('db '));
    expect(statements.length).toBeGreaterThan(0);
    for (const s of statements) expect(s.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    // What the SDK's own serializer writes for the spans read back: the same bytes.
    const again = ProtobufTraceSerializer.serializeRequest(decoded.spans) as Uint8Array;
    expect(Buffer.from(again).equals(sent.body)).toBe(true);
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
