import { createContextKey } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

/**
 * The process's one async context: what the app carries across awaits (inside the API's write
 * transaction, a request an MCP call forwards) and, tracing on, the active span, in one
 * OpenTelemetry `Context`.
 *
 * One store, not one per concern: on Node 20 each enabled AsyncLocalStorage adds its own step to
 * the promise hook of every promise the process makes. The SDK's own context manager beside the
 * app's store cost a traced order about half a point of its CPU (bench/RESULTS.md, "One async
 * context").
 *
 * Registered as OpenTelemetry's context manager when tracing starts (otel-sdk.ts). It is never
 * disabled: the app's own values live in it whether tracing is on or not.
 */
class ProcessContextManager extends AsyncLocalStorageContextManager {
  override disable(): this {
    return this;
  }
}

export const processContext = new ProcessContextManager();

export { createContextKey };

/** Runs `fn` with `key` set to `value` in the active context (and what `fn` awaits or starts). */
export function withContextValue<T>(key: symbol, value: unknown, fn: () => T): T {
  return processContext.with(processContext.active().setValue(key, value), fn);
}

/** The value of `key` in the active context; undefined outside any `withContextValue` for it. */
export const contextValue = (key: symbol): unknown => processContext.active().getValue(key);
