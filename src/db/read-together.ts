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
 * A scalar read of a tenant's rows whose statement text is built once, for the hot paths: Drizzle
 * renders table and column references anew on every call, which was most of a request's SQL
 * building (docs/decisions.md, "Hot statements keep their text"). The statement is
 * `select <select> from <table> where tenant_id = $tenant and <where>`: the tenant's condition is
 * always there, as `tenantWhere` puts it. Each `?` in `where` (and `tail`) is a value, bound as a
 * parameter in the order given.
 */
export function tenantRead<T>(
  table: PgTable & { tenantId: PgColumn },
  statement: { select: string; where?: string; tail?: string },
  decode: (value: unknown) => T,
): (tenantId: string, ...values: unknown[]) => ScalarRead<T> {
  const name = getTableName(table);
  const text = `select ${statement.select} from "${name}" where "${name}"."tenant_id" = ?${
    statement.where ? ` and ${statement.where}` : ''
  }${statement.tail ?? ''}`;
  const parts = text.split('?').map((part) => sql.raw(part));
  return (tenantId, ...values) => {
    const bound = [tenantId, ...values];
    const chunks: SQL[] = [parts[0] as SQL];
    for (let i = 0; i < bound.length; i++) chunks.push(sql`${bound[i]}`, parts[i + 1] as SQL);
    return { query: sql.join(chunks), decode };
  };
}

/**
 * A reader of one row of a tenant's `table` by id as a scalar read: its columns built into JSON by
 * the query and decoded back to the row Drizzle would return (timestamps as Dates), so a
 * single-resource read can share its round trip with the reads that complete it.
 */
export function rowByIdRead<T extends PgTable & { tenantId: PgColumn; id: PgColumn }>(
  table: T,
  /** Another unique column to find the row by (its property name), e.g. a token's hash. */
  key: keyof T['$inferSelect'] & string = 'id',
) {
  const name = getTableName(table);
  const columns = Object.entries(getTableColumns(table));
  const keyColumn = (getTableColumns(table) as Record<string, PgColumn>)[key]?.name ?? key;
  // The keys are the table's own property names (identifiers of our code), written as literals.
  const fields = columns.map(([key, c]) => `'${key}', "${name}"."${c.name}"`).join(', ');
  const timestamps = columns.filter(([, c]) => c.columnType === 'PgTimestamp').map(([key]) => key);
  const read = tenantRead(
    table,
    { select: `json_build_object(${fields})`, where: `"${name}"."${keyColumn}" = ?`, tail: ' limit 1' },
    (value): T['$inferSelect'] | undefined => {
      if (value === null || value === undefined) return undefined;
      const row = (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
      for (const key of timestamps) if (typeof row[key] === 'string') row[key] = new Date(row[key] as string);
      return row as T['$inferSelect'];
    },
  );
  return (tenantId: string, value: string) => read(tenantId, value);
}
