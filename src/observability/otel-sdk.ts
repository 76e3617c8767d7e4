import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import type { TracesExporter } from '../config.js';
import { processContext } from './async-context.js';
import { setTracingOn } from './tracing.js';

export interface Tracing {
  /** Sends what is buffered and unregisters the provider: tracing is off again. */
  shutdown(): Promise<void>;
}

/**
 * Registers a tracer provider with `processors` (W3C trace context propagation, spans followed
 * across awaits in the process's one async context, async-context.ts). The sampler is the SDK's,
 * from OTEL_TRACES_SAMPLER (default: parent-based, always on); the resource says `service.name`
 * (OTEL_SERVICE_NAME or commerce-agent-api) and OTEL_RESOURCE_ATTRIBUTES.
 */
export function startTracing(processors: SpanProcessor[], serviceVersion = '0.0.0'): Tracing {
  const resource = resourceFromAttributes({
    'service.name': 'commerce-agent-api',
    'service.version': serviceVersion,
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: processors });
  provider.register({ contextManager: processContext });
  setTracingOn(true);
  return {
    async shutdown() {
      setTracingOn(false);
      await provider.shutdown();
      trace.disable();
      // Unregisters the process context from the API; it stays enabled (async-context.ts).
      context.disable();
      propagation.disable();
    },
  };
}

/**
 * Tracing as the deployment's OTEL_* variables say (config.tracesExporter): nothing when `none`;
 * OTLP over HTTP, protobuf (the default: about half the CPU of JSON per span, and smaller) or
 * JSON, to OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT (the exporter reads that, its headers and
 * timeout), or the console, through a batching processor (OTEL_BSP_*).
 */
export function startTracingFromEnv(exporter: TracesExporter, serviceVersion: string): Tracing | undefined {
  if (exporter === 'none') return undefined;
  const spans =
    exporter === 'otlp-protobuf'
      ? new OtlpProtobufExporter()
      : exporter === 'otlp-json'
        ? new OtlpJsonExporter()
        : new ConsoleSpanExporter();
  return startTracing([new BatchSpanProcessor(spans)], serviceVersion);
}
