import type pg from 'pg';

/**
 * Most of PostgreSQL's work on our small queries is planning them, again on every call: the
 * pricing read plans in about 1 ms and runs in a fraction of that. Naming a statement makes the
 * server keep it per connection, parsed once and (after a few calls) planned once.
 *
 * So every parameterised query through the pool gets a name derived from its text. The same text
 * always gets the same name (node-postgres refuses one name for two texts), and names are handed
 * out for at most `MAX_NAMED` distinct texts per process: statements are built from a bounded set
 * of shapes, and a runaway set of texts (IN-lists of every length, say) only stops being named.
 */
const MAX_NAMED = 2_000;

/**
 * A statement whose text starts with this comment is never named: it is planned on every call
 * with its values. Catalog search needs that: how many rows its words, tenant and filters match
 * decides between index and sequential scans, and a generic plan (made once for any values)
 * guessed wrong by a factor of two in the bench.
 */
export const PLAN_PER_CALL = '/* plan per call */';
const names = new Map<string, string>();

function statementName(text: string): string | undefined {
  const known = names.get(text);
  if (known !== undefined || names.size >= MAX_NAMED) return known;
  const name = `cak_${names.size.toString(36)}`;
  names.set(text, name);
  return name;
}

type QueryFn = (...args: unknown[]) => unknown;

/** Wraps each new client's `query` so parameterised statements are named (prepared). */
export function prepareStatementsOn(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as QueryFn;
    (client as unknown as { query: QueryFn }).query = (config: unknown, ...rest: unknown[]) => {
      const values = rest[0];
      if (
        typeof config === 'object' &&
        config !== null &&
        'text' in config &&
        typeof config.text === 'string' &&
        !('name' in config && config.name) &&
        Array.isArray(values) &&
        values.length > 0 &&
        !config.text.startsWith(PLAN_PER_CALL)
      ) {
        const name = statementName(config.text);
        if (name) return query({ ...config, name }, ...rest);
      }
      return query(config, ...rest);
    };
  });
}
