import { context, propagation, type TracerProvider, trace } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  detectResources,
  envDetector,
  type Resource,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import type { TracesExporter } from '../config.js';
import { processContext } from './async-context.js';
import {
  type BatchOptions,
  batchOptionsFromEnv,
  otlpHttpSender,
  type SendExport,
  SpanBatch,
  samplingFromEnv,
  spanLimitsFromEnv,
} from './span-batch.js';
import { writtenSpanProvider } from './span-writer.js';
import { setTracingOn } from './tracing.js';

export interface Tracing {
  /** Sends what is buffered and unregisters the provider: tracing is off again. */
  shutdown(): Promise<void>;
}

const SCOPE = 'commerce-agent-api';

/** `service.name` (OTEL_SERVICE_NAME or commerce-agent-api), version, and OTEL_RESOURCE_ATTRIBUTES. */
const resourceOf = (serviceVersion: string): Resource =>
  resourceFromAttributes({ 'service.name': SCOPE, 'service.version': serviceVersion }).merge(
    detectResources({ detectors: [envDetector] }),
  );

/**
 * Makes `provider` the API's, spans followed across awaits in the process's one async context
 * (async-context.ts), with W3C trace context and baggage propagation (as the SDK registers).
 */
function register(provider: TracerProvider): void {
  processContext.enable();
  context.setGlobalContextManager(processContext);
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  setTracingOn(true);
}

function unregister(): void {
  trace.disable();
  // Unregisters the process context from the API; it stays enabled (async-context.ts).
  context.disable();
  propagation.disable();
}

/**
 * The SDK's tracer provider with `processors` (the console and OTLP JSON exporters, and tests that
 * read spans in memory). The sampler is the SDK's, from OTEL_TRACES_SAMPLER (default: parent-based,
 * always on).
 */
export function startTracing(processors: SpanProcessor[], serviceVersion = '0.0.0'): Tracing {
  const provider = new NodeTracerProvider({
    resource: resourceOf(serviceVersion),
    spanProcessors: processors,
  });
  register(provider);
  return {
    async shutdown() {
      setTracingOn(false);
      await provider.shutdown();
      unregister();
    },
  };
}

export interface WrittenTracing extends Tracing {
  /** Sends what the batch holds now; resolves when every send so far has settled. */
  flush(): Promise<void>;
}

/**
 * Our own span writer (span-writer.ts, span-batch.ts): spans written as OTLP protobuf when they
 * end and handed to `send` in batches. Sampler, span limits and batching from the standard
 * variables unless `batch` says otherwise.
 */
export function startSpanWriter(
  send: SendExport,
  serviceVersion = '0.0.0',
  batch: Partial<BatchOptions> = {},
): WrittenTracing {
  const resource = resourceOf(serviceVersion);
  const spans = new SpanBatch(
    { resource: { attributes: resource.attributes, schemaUrl: resource.schemaUrl }, scope: { name: SCOPE } },
    { ...batchOptionsFromEnv(), ...batch },
    send,
  );
  register(writtenSpanProvider(samplingFromEnv(), spanLimitsFromEnv(), spans.add));
  return {
    flush: () => spans.flush(),
    async shutdown() {
      setTracingOn(false);
      await spans.flush();
      unregister();
    },
  };
}

/**
 * Tracing as the deployment's OTEL_* variables say (config.tracesExporter): nothing when `none`;
 * OTLP over HTTP in protobuf (the default) through our own span writer, about a fifth of the
 * SDK's CPU per span (docs/decisions.md); OTLP JSON or the console through the SDK and its
 * batching processor (OTEL_BSP_*). Both OTLP paths send to OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT
 * with its headers, timeout and compression.
 */
export function startTracingFromEnv(exporter: TracesExporter, serviceVersion: string): Tracing | undefined {
  if (exporter === 'none') return undefined;
  if (exporter === 'otlp-protobuf') {
    const sender = otlpHttpSender();
    const tracing = startSpanWriter(sender.send, serviceVersion);
    return {
      async shutdown() {
        await tracing.shutdown();
        await sender.shutdown();
      },
    };
  }
  const spans = exporter === 'otlp-json' ? new OtlpJsonExporter() : new ConsoleSpanExporter();
  return startTracing([new BatchSpanProcessor(spans)], serviceVersion);
}
