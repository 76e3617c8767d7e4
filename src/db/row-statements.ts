import { getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { type Queryable, rowsOf } from './client.js';
import { rowByIdRead } from './read-together.js';

// A wide row read and written whole, with statement text built once per table: Drizzle renders
// every column of a 30-column table anew on each call, which was half an agentic checkout's CPU
// (docs/decisions.md, "Hot statements keep their text"). The tenant stays the first condition.

type Keyed = PgTable & { tenantId: PgColumn; id: PgColumn };

/** Statement text with `?` for each value, its pieces kept; the function makes the SQL for values. */
export function statementTemplate(text: string) {
  const parts = text.split('?').map((part) => sql.raw(part));
  return (values: readonly unknown[]): SQL => {
    const chunks: SQL[] = [parts[0] as SQL];
    for (let i = 0; i < values.length; i++) chunks.push(sql`${values[i]}`, parts[i + 1] as SQL);
    return sql.join(chunks);
  };
}

/** The tenant's row by id (with `lock`, FOR UPDATE in the caller's transaction), or undefined. */
export function rowById<T extends Keyed>(table: T) {
  const read = rowByIdRead(table);
  const name = getTableName(table);
  const fields = Object.entries(getTableColumns(table))
    .map(([key, c]) => `'${key}', "${name}"."${c.name}"`)
    .join(', ');
  const locked = statementTemplate(
    `select json_build_object(${fields}) as row from "${name}" where "${name}"."tenant_id" = ? and "${name}"."id" = ? for update`,
  );
  return async (
    q: Queryable,
    tenantId: string,
    id: string,
    lock = false,
  ): Promise<T['$inferSelect'] | undefined> => {
    const plain = read(tenantId, id);
    const query = lock ? locked([tenantId, id]) : sql`select (${plain.query}) as row`;
    const [found] = rowsOf<{ row: unknown }>(await q.execute(query));
    return plain.decode(found?.row ?? null);
  };
}

/** A cast for a column's parameter, so PostgreSQL reads the text as the column's type. */
function castOf(column: PgColumn): string {
  switch (column.columnType) {
    case 'PgJsonb':
      return '::jsonb';
    case 'PgTimestamp':
      return '::timestamptz';
    case 'PgUUID':
      return '::uuid';
    default:
      return '';
  }
}

/** A value as its parameter: JSON for jsonb, ISO text for timestamps. */
function paramOf(column: PgColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.columnType === 'PgJsonb') return JSON.stringify(value);
  if (value instanceof Date) return value.toISOString();
  return value;
}

/**
 * Writes a whole row (every column given): inserted, or replacing the row with its key. One
 * statement, its text built once; the caller presents the row it wrote (nothing is returned).
 */
export function rowUpsert<T extends Keyed>(table: T) {
  const name = getTableName(table);
  const columns = Object.entries(getTableColumns(table));
  const names = columns.map(([, c]) => `"${c.name}"`);
  const updates = columns
    .filter(([key]) => key !== 'tenantId' && key !== 'id')
    .map(([, c]) => `"${c.name}" = excluded."${c.name}"`);
  const statement = statementTemplate(
    `insert into "${name}" (${names.join(', ')}) values (${columns.map(([, c]) => `?${castOf(c)}`).join(', ')}) ` +
      `on conflict ("tenant_id", "id") do update set ${updates.join(', ')}`,
  );
  return async (q: Queryable, row: T['$inferSelect']): Promise<void> => {
    const values = columns.map(([key, c]) => paramOf(c, (row as Record<string, unknown>)[key]));
    await q.execute(statement(values));
  };
}
