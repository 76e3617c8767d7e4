import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import {
  type Attributes,
  failSpan,
  type Span,
  startClientSpan,
  tracingOn,
} from '../observability/tracing.js';

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Statements come from a bounded set of shapes, so the attributes of a recorded statement's span
 * are worked out once per statement: keyed by the name prepared-statements.ts gave it (a short
 * string; its text was hashed there already) or else by its text. Past `MAX_DESCRIBED` keys (or
 * for a text too long to keep), each is described afresh. PGlite is PostgreSQL too: both are
 * `postgresql`.
 */
const MAX_DESCRIBED = 2_000;
interface Described {
  name: string;
  attributes: Attributes;
}
const described = new Map<string, Described>();

/** The verb and the tables the statement names: `db.query.summary` (`INSERT orders order_lines`). */
function summaryOf(verb: string, text: string): string {
  const tables = new Set<string>();
  for (const m of text.matchAll(/\b(?:from|into|update|join)\s+"?([a-z_][a-z0-9_]*)"?/gi)) {
    tables.add((m[1] as string).toLowerCase());
    if (tables.size === 4) break;
  }
  return [verb.toUpperCase(), ...tables].join(' ');
}

const verbOf = (text: string) => /^\s*([a-z]+)/i.exec(text)?.[1]?.toLowerCase() ?? 'query';

function describe(full: string, verb: string): Described {
  // Bounded: an IN-list can make a statement long.
  const text = full.slice(0, 2_000);
  return {
    name: `db ${verb}`,
    attributes: {
      'db.system.name': 'postgresql',
      'db.query.summary': summaryOf(verb, text),
      'db.query.text': text,
    },
  };
}

function spanFor(query: unknown): Span | undefined {
  const config = typeof query === 'object' ? (query as { text?: unknown; name?: unknown } | null) : null;
  const text = typeof query === 'string' ? query : typeof config?.text === 'string' ? config.text : '';
  const key = typeof config?.name === 'string' ? config.name : text;
  const known = described.get(key);
  if (known) return startClientSpan(known.name, () => known.attributes);
  const verb = verbOf(text);
  return startClientSpan(`db ${verb}`, () => {
    const fresh = describe(text, verb);
    if (described.size < MAX_DESCRIBED && key.length <= 8_000) described.set(key, fresh);
    return fresh.attributes;
  });
}

/** `query` with a client span around each promise it returns (tracing on; else as it was). */
function traced(query: QueryFn): QueryFn {
  return (...args: unknown[]) => {
    if (!tracingOn()) return query(...args);
    const span = spanFor(args[0]);
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
    (client as unknown as { query: QueryFn }).query = traced(query);
  });
}

/** The same on PGlite: its queries, and those of each transaction it opens. */
export function traceQueriesOnPglite(client: PGlite): void {
  const query = client.query.bind(client) as QueryFn;
  (client as unknown as { query: QueryFn }).query = traced(query);
  const transaction = client.transaction.bind(client);
  client.transaction = ((work: (tx: { query: QueryFn }) => Promise<unknown>) =>
    transaction((tx) => {
      const txQuery = tx.query.bind(tx) as QueryFn;
      (tx as unknown as { query: QueryFn }).query = traced(txQuery);
      return work(tx as unknown as { query: QueryFn });
    })) as PGlite['transaction'];
}
