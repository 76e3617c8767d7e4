import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { startTracing } from '../../src/observability/otel-sdk.js';
import { describeTracing } from './tracing-scenarios.js';

// The SDK's pipeline, which OTLP JSON and the console exporter use: its in-memory exporter.
describeTracing('the SDK', () => {
  const exporter = new InMemorySpanExporter();
  return {
    tracing: startTracing([new SimpleSpanProcessor(exporter)]),
    finishedSpans: () => exporter.getFinishedSpans(),
  };
});
