import {
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSpanWriter, type WrittenTracing } from '../../src/observability/otel-sdk.js';
import type { SpanExport } from '../../src/observability/span-batch.js';
import { decodeExport } from './otlp-decode.js';

// Our span writer (the default OTLP protobuf pipeline) against the OpenTelemetry SDK it stands in
// for: the same calls through the API make the same spans, its bytes are the bytes the SDK's own
// serializer writes for them, and it samples, limits and batches as the SDK's variables say.

let running: WrittenTracing | undefined;
const env = new Map<string, string | undefined>();
function setEnv(values: Record<string, string>) {
  for (const [name, value] of Object.entries(values)) {
    if (!env.has(name)) env.set(name, process.env[name]);
    process.env[name] = value;
  }
}
afterEach(async () => {
  await running?.shutdown();
  running = undefined;
  for (const [name, value] of env) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  env.clear();
  vi.useRealTimers();
});

/** Starts the writer with a sender that keeps every request (answered by `answer`). */
function startCapturing(
  batch = {},
  answer: (sent: SpanExport) => Promise<ExportResult> = async () => ({ code: ExportResultCode.SUCCESS }),
) {
  const sent: SpanExport[] = [];
  running = startSpanWriter(
    (request) => {
      sent.push({ ...request, request: Buffer.from(request.request) }); // the batch's buffer is reused
      return answer(request);
    },
    'test',
    batch,
  );
  return sent;
}

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const remoteParent = () =>
  propagation.extract(context.active(), {
    traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
    tracestate: 'vendor=abc,other=1',
  });

/** An exception with a stack of its own: the same wherever it is recorded. */
const BOOM = Object.assign(new Error('boom'), { code: 'E_BOOM', stack: 'Error: boom\n    at exercise' });

/** Every kind of thing the API lets a caller put on a span, in a fixed order. */
function exercise(tracer: Tracer): void {
  tracer.startActiveSpan(
    'request',
    { kind: SpanKind.SERVER, attributes: { 'http.route': '/x' } },
    remoteParent(),
    (request) => {
      request.setAttributes({
        text: 'é ünïcödé ✓',
        long: 'x'.repeat(300),
        int: 42,
        negative: -7,
        large: 2 ** 60,
        double: 1.5,
        yes: true,
        no: false,
        strings: ['a', 'bb'],
        numbers: [1, 2.5],
        empty: '',
      });
      request.setAttribute('int', 43); // overrides, keeping its place
      const child = tracer.startSpan('db select', { kind: SpanKind.CLIENT });
      child.addEvent('plain');
      child.addEvent('with attributes', { rows: 3, table: 'orders' }, [1_700_000_000, 5]);
      child.recordException(BOOM);
      child.recordException('just text');
      child.setStatus({ code: SpanStatusCode.ERROR, message: 'failed' });
      child.setStatus({ code: SpanStatusCode.UNSET }); // changes nothing
      child.end();
      const linked = tracer.startSpan('worker', {
        root: true,
        links: [
          { context: request.spanContext(), attributes: { why: 'follows' } },
          { context: child.spanContext() },
        ],
      });
      linked.updateName('worker renamed');
      linked.setStatus({ code: SpanStatusCode.OK, message: 'dropped: only an error keeps its message' });
      linked.setStatus({ code: SpanStatusCode.ERROR }); // OK is final
      linked.end();
      request.end();
      request.setAttribute('after end', true); // ignored
    },
  );
}

/** A span as the API made it, without what differs from run to run (ids, times). */
function shape(span: ReadableSpan, all: ReadableSpan[]) {
  const nameOf = (spanId: string | undefined) =>
    spanId === CALLER_SPAN ? 'caller' : all.find((s) => s.spanContext().spanId === spanId)?.name;
  return {
    name: span.name,
    kind: span.kind,
    parent: nameOf(span.parentSpanContext?.spanId),
    parentIsRemote: span.parentSpanContext?.isRemote ?? false,
    traceFlags: span.spanContext().traceFlags,
    traceState: span.spanContext().traceState?.serialize(),
    ofCallerTrace: span.spanContext().traceId === CALLER_TRACE,
    attributes: span.attributes,
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events.map((e) => ({
      name: e.name,
      attributes: e.attributes,
      dropped: e.droppedAttributesCount ?? 0,
    })),
    droppedEventsCount: span.droppedEventsCount,
    links: span.links.map((l) => ({
      to: nameOf(l.context.spanId),
      attributes: l.attributes,
      dropped: l.droppedAttributesCount,
    })),
    droppedLinksCount: span.droppedLinksCount,
    status: span.status,
  };
}

/** The same calls through the SDK's tracer (limits from the same variables). */
function throughTheSdk(): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'sdk' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  exercise(provider.getTracer('sdk'));
  return exporter.getFinishedSpans();
}

async function throughOurWriter(): Promise<{ spans: ReadableSpan[]; request: Uint8Array }> {
  const sent = startCapturing();
  exercise(trace.getTracer('ours'));
  await running?.flush();
  expect(sent).toHaveLength(1);
  const request = (sent[0] as SpanExport).request;
  return { spans: decodeExport(request).spans, request };
}

describe('our span writer against the OpenTelemetry SDK', () => {
  it('makes the spans the SDK makes from the same API calls, and writes the bytes its serializer writes', async () => {
    const ours = await throughOurWriter();
    const sdk = throughTheSdk();
    expect(ours.spans.map((s) => shape(s, ours.spans))).toEqual(sdk.map((s) => shape(s, sdk)));
    // What the protobuf says, checked once by hand.
    const [child, worker, request] = ours.spans as [ReadableSpan, ReadableSpan, ReadableSpan];
    expect(request).toMatchObject({
      name: 'request',
      kind: SpanKind.SERVER,
      parentSpanContext: { spanId: CALLER_SPAN, isRemote: true },
    });
    expect(request.spanContext()).toMatchObject({ traceId: CALLER_TRACE, traceFlags: TraceFlags.SAMPLED });
    expect(request.spanContext().traceState?.serialize()).toBe('vendor=abc,other=1');
    expect(Object.keys(request.attributes)).toEqual([
      'http.route',
      'text',
      'long',
      'int',
      'negative',
      'large',
      'double',
      'yes',
      'no',
      'strings',
      'numbers',
      'empty',
    ]);
    expect(request.attributes).toMatchObject({
      text: 'é ünïcödé ✓',
      int: 43,
      negative: -7,
      large: 2 ** 60,
      double: 1.5,
      no: false,
      numbers: [1, 2.5],
    });
    expect(child.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(child.parentSpanContext?.isRemote).toBe(false);
    expect(child.status).toEqual({ code: SpanStatusCode.ERROR, message: 'failed' });
    expect(child.events.map((e) => e.name)).toEqual(['plain', 'with attributes', 'exception', 'exception']);
    expect(child.events[1]?.time).toEqual([1_700_000_000, 5]);
    expect(child.events[2]?.attributes).toMatchObject({
      'exception.type': 'E_BOOM',
      'exception.message': 'boom',
    });
    expect(worker).toMatchObject({ name: 'worker renamed', status: { code: SpanStatusCode.OK } });
    expect(worker.parentSpanContext).toBeUndefined();
    expect(worker.spanContext().traceId).not.toBe(CALLER_TRACE);
    for (const span of ours.spans) {
      const [start, end] = [span.startTime, span.endTime].map(
        ([s, ns]) => BigInt(s) * 1_000_000_000n + BigInt(ns),
      );
      expect((end as bigint) >= (start as bigint)).toBe(true);
      expect(Math.abs(span.startTime[0] - Date.now() / 1000)).toBeLessThan(600);
    }
    // The SDK's serializer, given the spans read back, writes our request byte for byte.
    const again = ProtobufTraceSerializer.serializeRequest(ours.spans) as Uint8Array;
    expect(Buffer.from(again).equals(Buffer.from(ours.request))).toBe(true);
  });

  it('keeps the limits the OTEL_*_LIMIT variables set, counting what it drops, as the SDK does', async () => {
    setEnv({
      OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: '3',
      OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4',
      OTEL_SPAN_EVENT_COUNT_LIMIT: '2',
      OTEL_SPAN_LINK_COUNT_LIMIT: '1',
      OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT: '1',
      OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT: '0',
    });
    const ours = await throughOurWriter();
    const sdk = throughTheSdk();
    expect(ours.spans.map((s) => shape(s, ours.spans))).toEqual(sdk.map((s) => shape(s, sdk)));
    const request = ours.spans.find((s) => s.name === 'request') as ReadableSpan;
    expect(request.attributes).toEqual({ 'http.route': '/x', text: 'é ün', long: 'xxxx' });
    expect(request.droppedAttributesCount).toBe(10); // the nine, and `int` set again
    const child = ours.spans.find((s) => s.name === 'db select') as ReadableSpan;
    expect(child.events.map((e) => e.name)).toEqual(['exception', 'exception']);
    expect(child.droppedEventsCount).toBe(2);
    const worker = ours.spans.find((s) => s.name === 'worker renamed') as ReadableSpan;
    expect(worker.links).toHaveLength(1);
    expect(worker.droppedLinksCount).toBe(1);
    expect(
      Buffer.from(ProtobufTraceSerializer.serializeRequest(ours.spans) as Uint8Array).equals(
        Buffer.from(ours.request),
      ),
    ).toBe(true);
  });
});

describe('sampling, as OTEL_TRACES_SAMPLER says', () => {
  /** Spans exported for a root span, a child of a sampled caller and one of an unsampled caller. */
  async function exported(sampler: Record<string, string>) {
    setEnv(sampler);
    const sent = startCapturing();
    const tracer = trace.getTracer('sampling');
    const parentFlags = (flags: string) =>
      propagation.extract(context.active(), { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-${flags}` });
    const made: Span[] = [
      tracer.startSpan('root'),
      tracer.startSpan('sampled caller', {}, parentFlags('01')),
      tracer.startSpan('unsampled caller', {}, parentFlags('00')),
    ];
    for (const span of made) span.end();
    await running?.flush();
    const names = sent.flatMap((s) => decodeExport(s.request).spans.map((span) => span.name));
    await running?.shutdown();
    running = undefined;
    return { names, recording: made.map((s) => s.isRecording()) };
  }

  it('defaults to parent-based always on: a root and a sampled caller’s child, not an unsampled caller’s', async () => {
    expect((await exported({})).names).toEqual(['root', 'sampled caller']);
  });
  it('follows each standard value', async () => {
    expect((await exported({ OTEL_TRACES_SAMPLER: 'always_on' })).names).toEqual([
      'root',
      'sampled caller',
      'unsampled caller',
    ]);
    expect(await exported({ OTEL_TRACES_SAMPLER: 'always_off' })).toEqual({
      names: [],
      recording: [false, false, false],
    });
    expect((await exported({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).names).toEqual([
      'sampled caller',
    ]);
    expect(
      (await exported({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' })).names,
    ).toEqual([]);
    expect(
      (await exported({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }))
        .names,
    ).toEqual(['sampled caller']);
    expect((await exported({ OTEL_TRACES_SAMPLER: 'no_such_sampler' })).names).toEqual([
      'root',
      'sampled caller',
    ]);
  });
});

describe('batching, as OTEL_BSP_* says', () => {
  const endSpans = (count: number) => {
    for (let i = 0; i < count; i++) trace.getTracer('batch').startSpan(`span ${i}`).end();
  };
  const spanCounts = (sent: SpanExport[]) => sent.map((s) => [s.spans, decodeExport(s.request).spans.length]);

  it('sends a full batch at once, the rest after the schedule delay, and drops what a full queue cannot hold', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    setEnv({
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2',
      OTEL_BSP_MAX_QUEUE_SIZE: '3',
      OTEL_BSP_SCHEDULE_DELAY: '5000',
    });
    // Each send held open; when answered, the bytes it was given must still be the batch it was.
    const answers: (() => void)[] = [];
    const sent = startCapturing(
      {},
      ({ request }) =>
        new Promise((resolve) => {
          const copy = Buffer.from(request);
          answers.push(() => {
            expect(Buffer.from(request).equals(copy)).toBe(true);
            resolve({ code: ExportResultCode.SUCCESS });
          });
        }),
    );
    endSpans(2);
    expect(spanCounts(sent)).toEqual([[2, 2]]); // full: sent at once
    endSpans(1);
    vi.advanceTimersByTime(4_999);
    expect(sent).toHaveLength(1);
    endSpans(1); // two sending and two waiting would be four: the queue holds three
    vi.advanceTimersByTime(1);
    expect(spanCounts(sent)).toEqual([
      [2, 2],
      [1, 1],
    ]);
    for (const answer of answers.splice(0)) answer();
    await vi.advanceTimersByTimeAsync(0);
    endSpans(2); // room again
    endSpans(1); // into the buffer of a batch sent before, while the one just sent is held
    vi.advanceTimersByTime(5_000);
    expect(spanCounts(sent)).toEqual([
      [2, 2],
      [1, 1],
      [2, 2],
      [1, 1],
    ]);
    for (const answer of answers.splice(0)) answer();
  });

  it('gives up on a send after OTEL_BSP_EXPORT_TIMEOUT and frees its place in the queue', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    setEnv({
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1',
      OTEL_BSP_MAX_QUEUE_SIZE: '1',
      OTEL_BSP_EXPORT_TIMEOUT: '30000',
    });
    const sent = startCapturing({}, () => new Promise(() => {})); // never answers
    endSpans(2);
    expect(sent).toHaveLength(1); // the second found the queue full
    await vi.advanceTimersByTimeAsync(30_000);
    endSpans(1);
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(30_000);
  });
});
