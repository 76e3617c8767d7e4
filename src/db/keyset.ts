import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/**
 * Keyset paging: the rows after `key` in a list ordered by `columns` (all descending or all
 * ascending), as one row comparison that an index on those columns serves. Each value is
 * encoded by its column (an ISO text for a timestamp becomes its Date).
 */
export function rowsAfter(columns: readonly PgColumn[], key: readonly unknown[], descending: boolean): SQL {
  const values = columns.map((column, i) => {
    const value = key[i];
    return sql.param(column.columnType === 'PgTimestamp' ? new Date(String(value)) : value, column);
  });
  const left = sql.join(
    columns.map((c) => sql`${c}`),
    sql`, `,
  );
  const right = sql.join(values, sql`, `);
  return descending ? sql`(${left}) < (${right})` : sql`(${left}) > (${right})`;
}
