import {
  type Attributes,
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';

export type { Attributes, Span };
export { SpanKind };

/**
 * Whether a tracer provider was started (otel-sdk.ts). Off, every helper here returns at once
 * without creating a span: tracing costs nothing when it is not configured.
 */
let on = false;

export const tracingOn = (): boolean => on;

/** Set by otel-sdk.ts when it registers a provider, and cleared when it shuts it down. */
export function setTracingOn(value: boolean): void {
  on = value;
  current = undefined;
}

/**
 * The registered provider's tracer, looked up once per provider: `trace.getTracer` goes through
 * the global registry and the provider's map on each call, about 1.4% of a traced request's CPU
 * when done for every span (bench/RESULTS.md, "Metrics and tracing on vs off").
 */
let current: Tracer | undefined;
const tracer = (): Tracer => {
  current ??= trace.getTracer('commerce-agent-api');
  return current;
};

/** A span that ends when `work` settles; an error marks it failed and is rethrown. */
export async function inSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!on) return work(undefined);
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

export function failSpan(span: Span, err: unknown): void {
  if (err instanceof Error) span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, ...(err instanceof Error ? { message: err.message } : {}) });
}

/**
 * The server span of an incoming request, a child of the caller's `traceparent` when it sent
 * one (else of the active span: an MCP tool's inner request is a child of the /mcp request),
 * and the context to run the rest of the request in.
 */
export function startServerSpan(
  name: string,
  headers: Record<string, unknown>,
  attributes: Attributes,
): { span: Span; context: Context } | undefined {
  if (!on) return undefined;
  const parent = propagation.extract(context.active(), headers);
  const span = tracer().startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/**
 * A client span, child of the active one, that the caller ends (a statement sent to the
 * database); none under a span that is not recording. Such a parent was not sampled, and the
 * samplers decide its children as they decided it (`parentbased_*` follow it, `traceidratio`
 * decides on the same trace id): their spans would be made and dropped. `attributes` is called
 * only for a span that will be exported, and set after the start: given to `startSpan`, the SDK
 * copies and checks them twice more.
 */
export function startClientSpan(name: string, attributes: () => Attributes): Span | undefined {
  if (!on) return undefined;
  const active = context.active();
  if (trace.getSpan(active)?.isRecording() === false) return undefined;
  const span = tracer().startSpan(name, { kind: SpanKind.CLIENT }, active);
  if (span.isRecording()) span.setAttributes(attributes());
  return span;
}

/** Runs `fn` in `ctx` (the request's span active), so the spans it starts are children. */
export const runInContext = <T>(ctx: Context, fn: () => T): T => context.with(ctx, fn);
