// What a traced POST /orders costs in span work alone, two ways, outside the server:
//
//   npx tsx bench/span-writer-prototype.ts
//
// - the SDK's path as the server runs it: three spans an order (the request, and two statements
//   with 1,220 and 1,632 characters of text) made by the SDK's tracer, batched by its
//   BatchSpanProcessor and encoded by the OTLP protobuf serializer (not sent);
// - a prototype of a span writer of our own: each span written as OTLP protobuf bytes when it
//   ends, its constant attributes (a statement's text above all) encoded once and copied after.
//
// Not the product: the measurement behind the choice between the SDK and a writer of our own
// for "every request traced" (bench/RESULTS.md, "A span writer of our own, measured").
import { randomFillSync } from 'node:crypto';
import { context, SpanKind, trace } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import { createContextKey, processContext } from '../src/observability/async-context.js';

const STATEMENTS = [
  `insert into "idempotency_keys" ${'x'.repeat(1_190)}`,
  `with o as (insert into orders ${'y'.repeat(1_600)})`,
];
const ROUNDS = 6;
const ORDERS_A_ROUND = 20_000;

// ---- The SDK's path
let sdkBytes = 0;
const encodeOnly: SpanExporter = {
  export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
    sdkBytes += ProtobufTraceSerializer.serializeRequest(spans)?.length ?? 0;
    done({ code: 0 });
  },
  async shutdown() {},
};
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'commerce-agent-api' }),
  spanProcessors: [new BatchSpanProcessor(encodeOnly)],
});
provider.register({ contextManager: processContext });
const tracer = trace.getTracer('commerce-agent-api');

async function sdkOrder() {
  const request = tracer.startSpan('POST /api/v1/orders', {
    kind: SpanKind.SERVER,
    attributes: {
      'http.request.method': 'POST',
      'url.path': '/api/v1/orders',
      'http.route': '/api/v1/orders',
    },
  });
  await context.with(trace.setSpan(context.active(), request), async () => {
    for (const text of STATEMENTS) {
      const statement = tracer.startSpan('db insert', { kind: SpanKind.CLIENT }, context.active());
      statement.setAttributes({
        'db.system.name': 'postgresql',
        'db.query.summary': 'INSERT orders',
        'db.query.text': text,
      });
      await Promise.resolve();
      statement.end();
    }
  });
  request.setAttributes({ 'http.response.status_code': 201, 'commerce.operation_id': 'createOrder' });
  request.end();
}

// ---- The prototype writer: spans appended to one buffer as OTLP `Span` messages
const utf8 = new TextEncoder();
const out = Buffer.allocUnsafe(1 << 20);
let at = 0;
let writtenBefore = 0;
const varintBytes = (value: number) => {
  const bytes: number[] = [];
  for (; value > 127; value >>>= 7) bytes.push((value & 127) | 128);
  bytes.push(value);
  return Buffer.from(bytes);
};
const lengthDelimited = (tag: number, body: Uint8Array) =>
  Buffer.concat([Buffer.from([tag]), varintBytes(body.length), body]);

/** A string attribute as the bytes of field 9 of a Span (KeyValue{key, AnyValue{string_value}}). */
const encoded = new Map<string, Buffer>();
function attribute(key: string, value: string): Buffer {
  const cacheKey = `${key}\u0000${value}`;
  let bytes = encoded.get(cacheKey);
  if (!bytes) {
    const anyValue = lengthDelimited(0x0a, utf8.encode(value));
    bytes = lengthDelimited(
      0x4a,
      Buffer.concat([lengthDelimited(0x0a, utf8.encode(key)), lengthDelimited(0x12, anyValue)]),
    );
    encoded.set(cacheKey, bytes);
  }
  return bytes;
}

const randomPool = Buffer.allocUnsafe(8_192);
let randomAt = randomPool.length;
function randomId(size: number): Buffer {
  if (randomAt + size > randomPool.length) {
    randomFillSync(randomPool);
    randomAt = 0;
  }
  randomAt += size;
  return Buffer.from(randomPool.subarray(randomAt - size, randomAt));
}
const epochNanos = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));

class WrittenSpan {
  readonly traceId: Buffer;
  readonly spanId = randomId(8);
  readonly parentId: Buffer | undefined;
  readonly start = epochNanos();
  attributes: Buffer[] = [];
  constructor(
    readonly name: string,
    readonly kind: SpanKind,
    parent?: WrittenSpan,
  ) {
    this.traceId = parent ? parent.traceId : randomId(16);
    this.parentId = parent?.spanId;
  }

  end(more: Buffer[] = []) {
    const end = epochNanos();
    if (at > out.length - 65_536) {
      writtenBefore += at;
      at = 0;
    }
    out[at++] = 0x12; // ScopeSpans.spans
    const lengthAt = at;
    at += 3; // a three-byte varint: spans are under 2 MB
    const bodyAt = at;
    // Fields under 128 bytes: ids and the span's name.
    const bytes = (tag: number, value: Uint8Array) => {
      out[at++] = tag;
      out[at++] = value.length;
      out.set(value, at);
      at += value.length;
    };
    bytes(0x0a, this.traceId);
    bytes(0x12, this.spanId);
    if (this.parentId) bytes(0x22, this.parentId);
    bytes(0x2a, utf8.encode(this.name));
    out[at++] = 0x30;
    out[at++] = this.kind + 1;
    out[at++] = 0x39;
    at = out.writeBigUInt64LE(this.start, at);
    out[at++] = 0x41;
    at = out.writeBigUInt64LE(end, at);
    for (const attributeBytes of [...this.attributes, ...more]) at += attributeBytes.copy(out, at);
    out[at++] = 0x7a; // an empty Status: unset
    out[at++] = 0;
    const length = at - bodyAt;
    out[lengthAt] = (length & 127) | 128;
    out[lengthAt + 1] = ((length >>> 7) & 127) | 128;
    out[lengthAt + 2] = length >>> 14;
  }
}

const ACTIVE = createContextKey('prototype span');
async function writtenOrder() {
  const request = new WrittenSpan('POST /api/v1/orders', SpanKind.SERVER);
  request.attributes = [
    attribute('http.request.method', 'POST'),
    attribute('url.path', '/api/v1/orders'),
    attribute('http.route', '/api/v1/orders'),
  ];
  await processContext.with(processContext.active().setValue(ACTIVE, request), async () => {
    for (const text of STATEMENTS) {
      const statement = new WrittenSpan(
        'db insert',
        SpanKind.CLIENT,
        processContext.active().getValue(ACTIVE) as WrittenSpan,
      );
      statement.attributes = [
        attribute('db.system.name', 'postgresql'),
        attribute('db.query.summary', 'INSERT orders'),
        attribute('db.query.text', text),
      ];
      await Promise.resolve();
      statement.end();
    }
  });
  request.end([attribute('commerce.operation_id', 'createOrder')]);
}

/** The same awaits in the same context, no spans: what both paths are measured against. */
async function untracedOrder() {
  await processContext.with(processContext.active(), async () => {
    for (const _ of STATEMENTS) await Promise.resolve();
  });
}

async function cpuMicrosPerOrder(order: () => Promise<void>) {
  const before = process.cpuUsage();
  for (let i = 0; i < ORDERS_A_ROUND; i++) {
    await order();
    // About five orders a millisecond, as the server answers them: let the batch's timers run.
    if (i % 5 === 4) await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / ORDERS_A_ROUND;
}

for (let round = 0; round < ROUNDS; round++) {
  const untraced = await cpuMicrosPerOrder(untracedOrder);
  const sdk = (await cpuMicrosPerOrder(sdkOrder)) - untraced;
  const written = (await cpuMicrosPerOrder(writtenOrder)) - untraced;
  console.log(
    `round ${round}: the SDK +${sdk.toFixed(1)} µs an order, the prototype writer +${written.toFixed(1)} µs`,
  );
}
await provider.forceFlush();
const orders = ROUNDS * ORDERS_A_ROUND;
console.log(
  `OTLP bytes an order: the SDK ${Math.round(sdkBytes / orders)}, the prototype ${Math.round((writtenBefore + at) / orders)}`,
);
await provider.shutdown();
