import { describeTracing } from './tracing-scenarios.js';
import { captureWrittenSpans } from './written-spans.js';

// Our span writer, the default pipeline (OTLP protobuf): each export request decoded back.
describeTracing('our span writer', () => {
  const { tracing, spans } = captureWrittenSpans();
  return { tracing, finishedSpans: () => spans };
});
