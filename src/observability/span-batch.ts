import { diag } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode, getNumberFromEnv, getStringFromEnv } from '@opentelemetry/core';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import { type ISerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { AlwaysOffSampler, AlwaysOnSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';
import {
  type ExportScope,
  ProtoWriter,
  RequestFraming,
  type SpanRecord,
  writeSpan,
} from './otlp-protobuf.js';
import type { Sampling, SpanLimits } from './span-writer.js';

/**
 * Ended spans, written as OTLP protobuf into the batch they will be sent in, and sent as the SDK's
 * BatchSpanProcessor sends: when a batch is full or its delay has passed, at most a queue's worth
 * waiting (more are dropped and counted), through the OTLP exporter's own HTTP delegate (endpoint,
 * headers, timeout, compression and retries from OTEL_EXPORTER_OTLP_*).
 */

export interface BatchOptions {
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMillis: number;
  exportTimeoutMillis: number;
}

/** An export request's bytes and how many spans it holds. */
export interface SpanExport {
  request: Uint8Array;
  spans: number;
}

/**
 * Sends one export request; resolves with the outcome (a failure is logged, not thrown). The
 * request's bytes are the batch's buffer, reused once the send has settled: copy them to keep them.
 */
export type SendExport = (batch: SpanExport) => Promise<ExportResult>;

/** The standard OTEL_BSP_* variables, with the SDK's defaults. */
export function batchOptionsFromEnv(): BatchOptions {
  const maxQueueSize = getNumberFromEnv('OTEL_BSP_MAX_QUEUE_SIZE') ?? 2048;
  return {
    maxQueueSize,
    maxExportBatchSize: Math.min(getNumberFromEnv('OTEL_BSP_MAX_EXPORT_BATCH_SIZE') ?? 512, maxQueueSize),
    scheduledDelayMillis: getNumberFromEnv('OTEL_BSP_SCHEDULE_DELAY') ?? 5000,
    exportTimeoutMillis: getNumberFromEnv('OTEL_BSP_EXPORT_TIMEOUT') ?? 30000,
  };
}

/** The standard span limits (OTEL_SPAN_*_LIMIT, else OTEL_ATTRIBUTE_*_LIMIT), with the SDK's defaults. */
export function spanLimitsFromEnv(): SpanLimits {
  const limit = (name: string, general?: string) =>
    getNumberFromEnv(name) ?? (general ? getNumberFromEnv(general) : undefined) ?? 128;
  return {
    attributeValueLengthLimit:
      getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT') ??
      getNumberFromEnv('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT') ??
      Number.POSITIVE_INFINITY,
    attributeCountLimit: limit('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', 'OTEL_ATTRIBUTE_COUNT_LIMIT'),
    linkCountLimit: limit('OTEL_SPAN_LINK_COUNT_LIMIT'),
    eventCountLimit: limit('OTEL_SPAN_EVENT_COUNT_LIMIT'),
    attributePerEventCountLimit: limit('OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT'),
    attributePerLinkCountLimit: limit('OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT'),
  };
}

/**
 * The standard OTEL_TRACES_SAMPLER (and _ARG), the SDK's default when unset or unknown. A
 * `parentbased_*` sampler's children follow their parent (as the SDK's `ParentBasedSampler` with
 * its default delegates decides); the named sampler decides for root spans.
 */
export function samplingFromEnv(): Sampling {
  const ratio = () => {
    const arg = getNumberFromEnv('OTEL_TRACES_SAMPLER_ARG');
    return arg !== undefined && arg >= 0 && arg <= 1 ? arg : 1;
  };
  const name = getStringFromEnv('OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on';
  switch (name) {
    case 'always_on':
      return { sampler: new AlwaysOnSampler(), followParent: false };
    case 'always_off':
      return { sampler: new AlwaysOffSampler(), followParent: false };
    case 'traceidratio':
      return { sampler: new TraceIdRatioBasedSampler(ratio()), followParent: false };
    case 'parentbased_always_off':
      return { sampler: new AlwaysOffSampler(), followParent: true };
    case 'parentbased_traceidratio':
      return { sampler: new TraceIdRatioBasedSampler(ratio()), followParent: true };
    default:
      if (name !== 'parentbased_always_on')
        diag.error(`OTEL_TRACES_SAMPLER value "${name}" invalid, defaulting to "parentbased_always_on".`);
      return { sampler: new AlwaysOnSampler(), followParent: true };
  }
}

/** Export requests sent as the OTLP protobuf exporter sends them, to where OTEL_* says. */
export function otlpHttpSender(): { send: SendExport; shutdown(): Promise<void> } {
  const serializer: ISerializer<SpanExport, unknown> = {
    serializeRequest: (batch) => batch.request,
    deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
  };
  const delegate = createOtlpHttpExportDelegate(
    convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
    serializer,
    'otlp_http_span_exporter',
    { name: 'span', countItems: (batch) => batch.spans },
    undefined,
  );
  return {
    send: (batch) => new Promise((resolve) => delegate.export(batch, resolve)),
    shutdown: () => delegate.shutdown(),
  };
}

export class SpanBatch {
  private readonly framing: RequestFraming;
  private writer: ProtoWriter;
  /** Writers whose batch has been sent, kept for the next batches: no new buffer per batch. */
  private readonly spareWriters: ProtoWriter[] = [];
  private pending = 0;
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly sends = new Set<Promise<unknown>>();
  /** Spans dropped because the queue was full. */
  dropped = 0;

  constructor(
    scope: ExportScope,
    private readonly options: BatchOptions,
    private readonly send: SendExport,
  ) {
    this.framing = new RequestFraming(scope);
    this.writer = new ProtoWriter(64 * 1024, this.framing.room);
  }

  /** A sampled span that has ended: written into the batch now, sent with it. */
  readonly add = (span: SpanRecord): void => {
    if (this.pending + this.inFlight >= this.options.maxQueueSize) {
      if (this.dropped++ === 0) diag.debug('span queue full: dropping spans');
      return;
    }
    writeSpan(this.writer, span);
    this.pending++;
    if (this.pending >= this.options.maxExportBatchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.scheduledDelayMillis).unref();
  };

  /** Sends what the batch holds now; resolves when every send begun so far has settled. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending > 0) {
      const spans = this.pending;
      const writer = this.writer;
      const request = this.framing.frame(writer);
      this.writer = this.spareWriters.pop() ?? new ProtoWriter(writer.buffer.length, this.framing.room);
      this.pending = 0;
      this.inFlight += spans;
      const sent = this.exportWithin({ request, spans }).then((result) => {
        this.inFlight -= spans;
        this.sends.delete(sent);
        // Its bytes are not read again once the send has settled; a send given up on may still be.
        if (!result.timedOut && this.spareWriters.length < 2) {
          writer.reset();
          this.spareWriters.push(writer);
        }
        if (result.code !== ExportResultCode.SUCCESS)
          diag.error(`span export failed: ${result.error?.message ?? 'unknown error'}`);
      });
      this.sends.add(sent);
    }
    await Promise.all(this.sends);
  }

  private exportWithin(batch: SpanExport): Promise<ExportResult & { timedOut?: true }> {
    return new Promise((resolve) => {
      const timeout = setTimeout(
        () =>
          resolve({
            code: ExportResultCode.FAILED,
            error: new Error('span export timed out'),
            timedOut: true,
          }),
        this.options.exportTimeoutMillis,
      ).unref();
      this.send(batch).then(
        (result) => {
          clearTimeout(timeout);
          resolve(result);
        },
        (error: unknown) => {
          clearTimeout(timeout);
          resolve({
            code: ExportResultCode.FAILED,
            error: error instanceof Error ? error : new Error(String(error)),
          });
        },
      );
    });
  }
}
