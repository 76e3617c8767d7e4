import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { describe, expect, it } from 'vitest';
import { assertOutsideApiTransaction, insideApiTransaction } from '../../src/db/transaction-guard.js';
import { startTracing } from '../../src/observability/otel-sdk.js';
import { inSpan, SpanKind } from '../../src/observability/tracing.js';

// The app's own values (here: inside the API's write transaction) and the tracing context share
// one async context (src/observability/async-context.ts). Starting tracing, running a span inside
// the transaction, and stopping tracing (which disables the context manager it registered) must
// not lose them.

const GUARD = /inside the API's write transaction/;
const billingCallInside = () =>
  insideApiTransaction(async () => {
    await Promise.resolve();
    assertOutsideApiTransaction('billing adapter builtin.createCustomer');
  });

describe('one async context for the app and for tracing', () => {
  it('keeps the write-transaction guard with tracing off, on, inside a span, and while and after tracing stops', async () => {
    await expect(billingCallInside()).rejects.toThrow(GUARD);

    const exporter = new InMemorySpanExporter();
    const tracing = startTracing([new SimpleSpanProcessor(exporter)]);
    try {
      await expect(billingCallInside()).rejects.toThrow(GUARD);
      const inner = insideApiTransaction(() =>
        inSpan('inner', SpanKind.INTERNAL, {}, async () => {
          await Promise.resolve();
          assertOutsideApiTransaction('billing adapter builtin.createCustomer');
        }),
      );
      await expect(inner).rejects.toThrow(GUARD);
      expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['inner']);
      // Outside the transaction, the same call is allowed.
      expect(() => assertOutsideApiTransaction('billing adapter builtin.createCustomer')).not.toThrow();
    } finally {
      // Stopped while a unit of work is in flight, whose guard must still hold after the stop.
      const inFlight = insideApiTransaction(async () => {
        await tracing.shutdown();
        assertOutsideApiTransaction('billing adapter builtin.createCustomer');
      });
      await expect(inFlight).rejects.toThrow(GUARD);
    }

    await expect(billingCallInside()).rejects.toThrow(GUARD);
  });
});
