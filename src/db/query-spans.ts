import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { failSpan, type Span, SpanKind, startClientSpan, tracingOn } from '../observability/tracing.js';

type QueryFn = (...args: unknown[]) => unknown;

/** The statement's text, as a span names it (bounded: an IN-list can make it long). */
function statementText(query: unknown): string {
  const text = typeof query === 'string' ? query : (query as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text.slice(0, 2_000) : '';
}

function spanFor(system: string, query: unknown): Span | undefined {
  const text = statementText(query);
  return startClientSpan(`db ${text.split(/\s/, 1)[0]?.toLowerCase() || 'query'}`, {
    'db.system.name': system,
    'db.query.text': text,
  });
}

/** `query` with a client span around each promise it returns (tracing on; else as it was). */
function traced(system: string, query: QueryFn): QueryFn {
  return (...args: unknown[]) => {
    if (!tracingOn()) return query(...args);
    const span = spanFor(system, args[0]);
    const result = query(...args);
    if (!span) return result;
    if (result instanceof Promise)
      return result.then(
        (value) => {
          span.end();
          return value;
        },
        (err: unknown) => {
          failSpan(span, err);
          span.end();
          throw err;
        },
      );
    span.end();
    return result;
  };
}

/**
 * A span per statement on each connection of the pool (PostgreSQL), as a child of the span
 * active where it was issued: the request's, a billing call's, the worker's.
 */
export function traceQueriesOnPool(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as QueryFn;
    (client as unknown as { query: QueryFn }).query = traced('postgresql', query);
  });
}

/** The same on PGlite: its queries, and those of each transaction it opens. */
export function traceQueriesOnPglite(client: PGlite): void {
  const query = client.query.bind(client) as QueryFn;
  (client as unknown as { query: QueryFn }).query = traced('postgresql', query);
  const transaction = client.transaction.bind(client);
  client.transaction = ((work: (tx: { query: QueryFn }) => Promise<unknown>) =>
    transaction((tx) => {
      const txQuery = tx.query.bind(tx) as QueryFn;
      (tx as unknown as { query: QueryFn }).query = traced('postgresql', txQuery);
      return work(tx as unknown as { query: QueryFn });
    })) as PGlite['transaction'];
}
