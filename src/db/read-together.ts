import { getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
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

/**
 * A reader of one row of a tenant's `table` by id as a scalar read: its columns built into JSON by
 * the query and decoded back to the row Drizzle would return (timestamps as Dates), so a
 * single-resource read can share its round trip with the reads that complete it. The statement's
 * text is built once per table: Drizzle renders column references anew on every call, which was
 * most of a GET's CPU when it did.
 */
export function rowByIdRead<T extends PgTable & { tenantId: PgColumn; id: PgColumn }>(table: T) {
  const name = getTableName(table);
  const columns = Object.entries(getTableColumns(table));
  const column = (c: string) => `"${name}"."${c}"`;
  // The keys are the table's own property names (identifiers of our code), written as literals.
  const fields = columns.map(([key, c]) => `'${key}', ${column(c.name)}`).join(', ');
  const head = sql.raw(`select json_build_object(${fields}) from "${name}" where ${column('tenant_id')} = `);
  const byId = sql.raw(` and ${column('id')} = `);
  const tail = sql.raw(' limit 1');
  const timestamps = columns.filter(([, c]) => c.columnType === 'PgTimestamp').map(([key]) => key);
  const decode = (value: unknown): T['$inferSelect'] | undefined => {
    if (value === null || value === undefined) return undefined;
    const row = (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
    for (const key of timestamps) if (typeof row[key] === 'string') row[key] = new Date(row[key] as string);
    return row as T['$inferSelect'];
  };
  return (tenantId: string, id: string): ScalarRead<T['$inferSelect'] | undefined> => ({
    query: sql`${head}${tenantId}${byId}${id}${tail}`,
    decode,
  });
}
