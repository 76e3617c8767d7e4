import { eq, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { type Tags, tagFilter } from '../core/tags.js';
import type { Queryable } from './client.js';
import type { EntityTable } from './tenant-repo.js';
import { tenantWhere } from './tenant-scope.js';

/** A tenant-owned table with a `tags jsonb not null default '{}'` column. */
export type TaggedTable = EntityTable & { tags: PgColumn };

/**
 * The `tag=key:value` filters of a list as one condition: the row's tags contain every pair
 * (`tags @> '{"k":"v",...}'`); undefined without filters, false when they contradict each other.
 */
export function tagsMatch(column: PgColumn, filters: readonly string[] | undefined): SQL | undefined {
  const wanted = tagFilter(filters);
  if (wanted === undefined) return undefined;
  if (wanted === null) return sql`false`;
  return sql`${column} @> ${JSON.stringify(wanted)}::jsonb`;
}

// Drizzle's builders do not type-check over a generic table (see tenantRepo).
// biome-ignore lint/suspicious/noExplicitAny: see above
type AnyTable = any;

/** The tenant's row `id` under its row lock (so concurrent tag changes apply one after another). */
export async function lockTagged<Row>(
  tx: Queryable,
  table: TaggedTable,
  tenantId: string,
  id: string,
): Promise<Row | undefined> {
  const t = table as AnyTable;
  const [row] = await tx
    .select()
    .from(t)
    .where(tenantWhere(table, tenantId, eq(t.id, id)))
    .for('update');
  return row as Row | undefined;
}

/** Replaces the row's tags (and moves its `updatedAt`); the row as it is now. */
export async function writeTags<Row>(
  tx: Queryable,
  table: TaggedTable,
  tenantId: string,
  id: string,
  tags: Tags,
  now: Date,
): Promise<Row | undefined> {
  const t = table as AnyTable;
  const [row] = await tx
    .update(t)
    .set({ tags, updatedAt: now })
    .where(tenantWhere(table, tenantId, eq(t.id, id)))
    .returning();
  return row as Row | undefined;
}
