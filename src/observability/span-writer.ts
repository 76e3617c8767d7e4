import { randomFillSync } from 'node:crypto';
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context as contextApi,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
  TraceFlags,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { isAttributeValue, isTimeInput, isTracingSuppressed, sanitizeAttributes } from '@opentelemetry/core';
import { type Sampler, SamplingDecision, type SamplingResult } from '@opentelemetry/sdk-trace-node';
import type { SpanEventRecord, SpanLinkRecord, SpanRecord } from './otlp-protobuf.js';

/**
 * A tracer of our own for the default exporter (OTLP protobuf): spans that keep only what OTLP
 * sends and are written as protobuf when they end (span-batch.ts), in place of the SDK's span,
 * processor and serializer, about a fifth of their CPU per span (bench/RESULTS.md, "A span
 * writer of our own"). It behaves as the SDK's tracer does where the API leaves room: the same
 * sampler (from OTEL_TRACES_SAMPLER), limits (OTEL_*_LIMIT), status and exception rules, so what a
 * collector receives is what the SDK would have sent (docs/decisions.md).
 */

export interface SpanLimits {
  attributeValueLengthLimit: number;
  attributeCountLimit: number;
  linkCountLimit: number;
  eventCountLimit: number;
  attributePerEventCountLimit: number;
  attributePerLinkCountLimit: number;
}

/** Receives each sampled span once it has ended. */
export type SpanSink = (span: SpanRecord) => void;

// Ids cut from a pool of random bytes written out as hex: one system call and one conversion for
// about 600 spans' ids.
const ID_POOL_BYTES = 8_192;
let idPool = '';
let idAt = 0;
function randomHex(bytes: number): string {
  if (idAt + bytes * 2 > idPool.length) {
    idPool = randomFillSync(Buffer.allocUnsafe(ID_POOL_BYTES)).toString('hex');
    idAt = 0;
  }
  idAt += bytes * 2;
  return idPool.slice(idAt - bytes * 2, idAt);
}

const NANOS_PER_MILLI = 1e6;
function hrTimeOfMillis(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * NANOS_PER_MILLI)];
}
const addMillis = (time: HrTime, ms: number): HrTime => {
  const total = time[1] + Math.round(ms * NANOS_PER_MILLI);
  return [time[0] + Math.floor(total / 1e9), total % 1e9];
};
const isHrTime = (value: unknown): value is HrTime =>
  Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number';

function truncate(value: AttributeValue, limit: number): AttributeValue {
  if (limit === Number.POSITIVE_INFINITY || limit < 0) return value;
  if (typeof value === 'string') return value.length > limit ? value.slice(0, limit) : value;
  if (Array.isArray(value))
    return value.map((item) =>
      typeof item === 'string' && item.length > limit ? item.slice(0, limit) : item,
    ) as string[] | number[] | boolean[];
  return value;
}

/** At most `countLimit` of `attributes`, values truncated; how many were dropped. */
function limited(attributes: Attributes | undefined, countLimit: number, valueLimit: number) {
  const kept: Attributes = {};
  let count = 0;
  let dropped = 0;
  const sanitized = sanitizeAttributes(attributes);
  for (const key in sanitized) {
    if (!Object.hasOwn(sanitized, key)) continue;
    if (count >= countLimit) {
      dropped++;
      continue;
    }
    kept[key] = truncate(sanitized[key] as AttributeValue, valueLimit);
    count++;
  }
  return { kept, count, dropped };
}

const NO_EVENTS = Object.freeze([]) as unknown as SpanEventRecord[];
const NO_LINKS = Object.freeze([]) as unknown as SpanLinkRecord[];
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

class WrittenSpan implements Span, SpanRecord {
  attributes: Attributes = {};
  droppedAttributesCount = 0;
  private attributeCount = 0;
  // Shared empty lists and status until the span has its own: most spans have neither.
  events = NO_EVENTS;
  droppedEventsCount = 0;
  links = NO_LINKS;
  droppedLinksCount = 0;
  status: SpanStatus = UNSET;
  startTime: HrTime;
  endTime: HrTime = [0, 0];
  private readonly startedAt = performance.now();
  private ended = false;

  constructor(
    readonly context: SpanContext,
    readonly parent: SpanContext | undefined,
    public name: string,
    readonly kind: SpanKind,
    private readonly limits: SpanLimits,
    private readonly sink: SpanSink,
    startTime: TimeInput | undefined,
  ) {
    this.startTime = startTime === undefined ? hrTimeOfMillis(Date.now()) : this.timeOf(startTime);
  }

  private timeOf(input: TimeInput | undefined): HrTime {
    if (input === undefined) return addMillis(this.startTime, performance.now() - this.startedAt);
    if (isHrTime(input)) return input;
    if (input instanceof Date) return hrTimeOfMillis(input.getTime());
    // A number below the process's own clock is a `performance.now()` reading, as the SDK takes it.
    return hrTimeOfMillis(input <= performance.now() ? input + performance.timeOrigin : input);
  }

  spanContext(): SpanContext {
    return this.context;
  }

  isRecording(): boolean {
    return !this.ended;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (this.ended || value == null || key.length === 0 || !isAttributeValue(value)) return this;
    const isNew = !Object.hasOwn(this.attributes, key);
    if (isNew && this.attributeCount >= this.limits.attributeCountLimit) {
      this.droppedAttributesCount++;
      return this;
    }
    this.attributes[key] = truncate(value, this.limits.attributeValueLengthLimit);
    if (isNew) this.attributeCount++;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes)
      if (Object.hasOwn(attributes, key)) this.setAttribute(key, attributes[key] as AttributeValue);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    const { eventCountLimit, attributePerEventCountLimit, attributeValueLengthLimit } = this.limits;
    if (eventCountLimit === 0) {
      this.droppedEventsCount++;
      return this;
    }
    if (this.events === NO_EVENTS) this.events = [];
    if (this.events.length >= eventCountLimit) {
      this.events.shift();
      this.droppedEventsCount++;
    }
    let attributes = attributesOrTime as Attributes | undefined;
    if (isTimeInput(attributesOrTime)) {
      if (!isTimeInput(time)) time = attributesOrTime;
      attributes = undefined;
    }
    const { kept, dropped } = limited(attributes, attributePerEventCountLimit, attributeValueLengthLimit);
    this.events.push({ name, attributes: kept, time: this.timeOf(time), droppedAttributesCount: dropped });
    return this;
  }

  addLink(link: Link): this {
    if (this.ended) return this;
    const { linkCountLimit, attributePerLinkCountLimit, attributeValueLengthLimit } = this.limits;
    if (linkCountLimit === 0) {
      this.droppedLinksCount++;
      return this;
    }
    if (this.links === NO_LINKS) this.links = [];
    if (this.links.length >= linkCountLimit) {
      this.links.shift();
      this.droppedLinksCount++;
    }
    const { kept, count, dropped } = limited(
      link.attributes,
      attributePerLinkCountLimit,
      attributeValueLengthLimit,
    );
    this.links.push({
      context: link.context,
      ...(count > 0 ? { attributes: kept } : {}),
      ...(dropped > 0 ? { droppedAttributesCount: dropped } : {}),
    });
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  /** As the SDK: UNSET changes nothing, OK is final, and only an error keeps its message. */
  setStatus(status: SpanStatus): this {
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK)
      return this;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string'
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else if (exception) {
      const type = exception.code ? String(exception.code) : exception.name;
      if (type) attributes['exception.type'] = type;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    if (attributes['exception.type'] || attributes['exception.message'])
      this.addEvent('exception', attributes, time);
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.endTime = this.timeOf(endTime);
    this.ended = true;
    // Recording but not sampled (a sampler's RECORD): seen by the process, not sent.
    if (this.context.traceFlags & TraceFlags.SAMPLED) this.sink(this);
  }
}

/**
 * How spans are sampled: OTEL_TRACES_SAMPLER's sampler, and whether a child follows its parent's
 * decision without asking it (every `parentbased_*` sampler from the variables: a sampled parent's
 * children are sampled, an unsampled one's are not, the SDK's `ParentBasedSampler` defaults).
 */
export interface Sampling {
  sampler: Sampler;
  followParent: boolean;
}

/** The API's tracer over `WrittenSpan`s, with the SDK's rules for parents, ids and sampling. */
class WrittenSpanTracer implements Tracer {
  constructor(
    private readonly sampling: Sampling,
    private readonly limits: SpanLimits,
    private readonly sink: SpanSink,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = contextApi.active()): Span {
    const parentContext = options.root ? trace.deleteSpan(ctx) : ctx;
    if (isTracingSuppressed(parentContext)) return trace.wrapSpanContext({ ...INVALID_CONTEXT });
    const parentSpan = trace.getSpan(parentContext);
    const parentSpanContext = parentSpan?.spanContext();
    // Our own spans' contexts are valid by construction: no need to check their ids' form.
    const parent =
      parentSpan instanceof WrittenSpan ||
      (parentSpanContext !== undefined && trace.isSpanContextValid(parentSpanContext))
        ? parentSpanContext
        : undefined;
    const traceId = parent?.traceId ?? randomHex(16);
    const spanId = randomHex(8);
    const kind = options.kind ?? SpanKind.INTERNAL;
    const links = options.links?.map((link) => ({
      context: link.context,
      attributes: sanitizeAttributes(link.attributes),
    }));
    const attributes = options.attributes ? sanitizeAttributes(options.attributes) : undefined;
    const sampled =
      parent && this.sampling.followParent
        ? parent.traceFlags & TraceFlags.SAMPLED
          ? FOLLOWED_SAMPLED
          : FOLLOWED_UNSAMPLED
        : this.sampling.sampler.shouldSample(
            parentContext,
            traceId,
            name,
            kind,
            attributes ?? {},
            links ?? [],
          );
    const traceState = sampled.traceState ?? parent?.traceState;
    const traceFlags =
      sampled.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE;
    const spanContext: SpanContext = { traceId, spanId, traceFlags, ...(traceState ? { traceState } : {}) };
    if (sampled.decision === SamplingDecision.NOT_RECORD) return trace.wrapSpanContext(spanContext);
    const span = new WrittenSpan(spanContext, parent, name, kind, this.limits, this.sink, options.startTime);
    if (links) span.addLinks(links);
    if (attributes) span.setAttributes(attributes);
    if (sampled.attributes) span.setAttributes(sampled.attributes);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...args: unknown[]): ReturnType<F> {
    const fn = args.at(-1) as F;
    const options = (args.length >= 2 ? args[0] : undefined) as SpanOptions | undefined;
    const parent = (args.length >= 3 ? args[1] : undefined) as Context | undefined;
    const ctx = parent ?? contextApi.active();
    const span = this.startSpan(name, options, ctx);
    return contextApi.with(trace.setSpan(ctx, span), fn as (span: Span) => ReturnType<F>, undefined, span);
  }
}

const FOLLOWED_SAMPLED = { decision: SamplingDecision.RECORD_AND_SAMPLED } as SamplingResult;
const FOLLOWED_UNSAMPLED = { decision: SamplingDecision.NOT_RECORD } as SamplingResult;

const INVALID_CONTEXT: SpanContext = {
  traceId: '00000000000000000000000000000000',
  spanId: '0000000000000000',
  traceFlags: TraceFlags.NONE,
};

/** A provider whose every tracer writes spans to `sink` (one scope: the service's). */
export function writtenSpanProvider(sampling: Sampling, limits: SpanLimits, sink: SpanSink): TracerProvider {
  const tracer = new WrittenSpanTracer(sampling, limits, sink);
  return { getTracer: () => tracer };
}
