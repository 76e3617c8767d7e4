import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { startSpanWriter } from '../../src/observability/otel-sdk.js';
import { decodeExport } from './otlp-decode.js';
import { describeTracing } from './tracing-scenarios.js';

// Our span writer, the default pipeline (OTLP protobuf): every span sent on its own as it ends (a
// batch of one), and each export request decoded back as a collector would read it.
describeTracing('our span writer', () => {
  const spans: ReadableSpan[] = [];
  const tracing = startSpanWriter(
    async ({ request }) => {
      spans.push(...decodeExport(request).spans);
      return { code: ExportResultCode.SUCCESS };
    },
    'test',
    { maxExportBatchSize: 1 },
  );
  return { tracing, finishedSpans: () => spans };
});
