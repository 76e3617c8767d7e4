import { type SQL, sql } from 'drizzle-orm';
import { type Queryable, rowsOf } from './client.js';

/**
 * A read that yields ONE value (usually JSON built by the query) and how to decode it. Modules
 * expose their reads this way so a caller can run several in one statement (`readTogether`):
 * each module still writes only its own SQL.
 */
export interface ScalarRead<T> {
  query: SQL;
  decode(value: unknown): T;
}

type Decoded<R extends readonly ScalarRead<unknown>[]> = {
  [K in keyof R]: R[K] extends ScalarRead<infer T> ? T : never;
};

/**
 * Runs scalar reads as the columns of one SELECT: one round trip where each read would cost one.
 * A hot write path (POST /orders) reads pricing data, policies and its order number this way.
 */
export async function readTogether<const R extends readonly ScalarRead<unknown>[]>(
  db: Queryable,
  reads: R,
): Promise<Decoded<R>> {
  const columns = reads.map((read, i) => sql`(${read.query}) as ${sql.raw(`r${i}`)}`);
  const [row] = rowsOf<Record<string, unknown>>(await db.execute(sql`select ${sql.join(columns, sql`, `)}`));
  return reads.map((read, i) => read.decode(row?.[`r${i}`])) as Decoded<R>;
}
