import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { startSpanWriter, type WrittenTracing } from '../../src/observability/otel-sdk.js';
import { decodeExport } from './otlp-decode.js';

/**
 * Our span writer with every span sent on its own as it ends (a batch of one), to a sender that
 * keeps each export request's bytes and the spans decoded from them.
 */
export function captureWrittenSpans(): {
  tracing: WrittenTracing;
  requests: Uint8Array[];
  spans: ReadableSpan[];
} {
  const requests: Uint8Array[] = [];
  const spans: ReadableSpan[] = [];
  const tracing = startSpanWriter(
    async ({ request }) => {
      requests.push(Buffer.from(request)); // the batch's buffer is reused
      spans.push(...decodeExport(request).spans);
      return { code: ExportResultCode.SUCCESS };
    },
    'test',
    { maxExportBatchSize: 1 },
  );
  return { tracing, requests, spans };
}
