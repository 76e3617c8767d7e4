// What a traced POST /orders costs in span work alone, two ways, outside the server:
//
//   npx tsx bench/span-writer.ts
//
// - the SDK's path (OTLP JSON and the console exporter take it): three spans an order (the
//   request, and two statements with 1,220 and 1,632 characters of text; a real POST /orders makes
//   six, the four others short) made by the SDK's tracer,
//   batched by its BatchSpanProcessor and encoded by the OTLP protobuf serializer (not sent);
// - our span writer (the default OTLP protobuf path): the same spans through the API, each written
//   as OTLP protobuf when it ends, batched (encoded, not sent).
//
// bench/RESULTS.md, "A span writer of our own". (Until 4fcd149 this file held the prototype the
// writer was measured from.)
import { context, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import { processContext } from '../src/observability/async-context.js';
import {
  batchOptionsFromEnv,
  SpanBatch,
  samplingFromEnv,
  spanLimitsFromEnv,
} from '../src/observability/span-batch.js';
import { writtenSpanProvider } from '../src/observability/span-writer.js';

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

// ---- Our span writer (src/observability/span-writer.ts, span-batch.ts), its batches encoded, not sent
let writtenBytes = 0;
const batch = new SpanBatch(
  {
    resource: { attributes: { 'service.name': 'commerce-agent-api' } },
    scope: { name: 'commerce-agent-api' },
  },
  batchOptionsFromEnv(),
  async (request) => {
    writtenBytes += request.request.length;
    return { code: ExportResultCode.SUCCESS };
  },
);
const writer = writtenSpanProvider(samplingFromEnv(), spanLimitsFromEnv(), batch.add).getTracer(
  'commerce-agent-api',
);

/** One order's spans through `spans`: the request, and a span for each statement inside it. */
const tracedOrder = (spans: Tracer) => async () => {
  const request = spans.startSpan('POST /api/v1/orders', {
    kind: SpanKind.SERVER,
    attributes: {
      'http.request.method': 'POST',
      'url.path': '/api/v1/orders',
      'http.route': '/api/v1/orders',
    },
  });
  await context.with(trace.setSpan(context.active(), request), async () => {
    for (const text of STATEMENTS) {
      const statement = spans.startSpan('db insert', { kind: SpanKind.CLIENT }, context.active());
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
};
const sdkOrder = tracedOrder(tracer);
const writtenOrder = tracedOrder(writer);

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
  console.log(`round ${round}: the SDK +${sdk.toFixed(1)} µs an order, our writer +${written.toFixed(1)} µs`);
}
await provider.forceFlush();
await batch.flush();
const orders = ROUNDS * ORDERS_A_ROUND;
console.log(
  `OTLP bytes an order: the SDK ${Math.round(sdkBytes / orders)}, our writer ${Math.round(writtenBytes / orders)}`,
);
await provider.shutdown();
