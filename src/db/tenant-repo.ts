import { desc, eq } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Queryable } from './client.js';
import { tenantWhere } from './tenant-scope.js';

/** A tenant-owned table keyed (tenant_id, id) with created/updated timestamps. */
export type EntityTable = PgTable & {
  tenantId: PgColumn;
  id: PgColumn;
  createdAt: PgColumn;
  updatedAt: PgColumn;
};

type Row<T extends EntityTable> = T['$inferSelect'];
type Insert<T extends EntityTable> = Omit<T['$inferInsert'], 'tenantId'>;

/**
 * Tenant-scoped data access for one entity table: every statement filters by tenant, so a
 * foreign tenant's id behaves exactly like an unknown id.
 */
export function tenantRepo<T extends EntityTable>(table: T) {
  // Drizzle's builders do not type-check over a generic table; this facade is typed instead.
  // biome-ignore lint/suspicious/noExplicitAny: see above
  const t = table as any;
  return {
    async list(db: Queryable, tenantId: string): Promise<Row<T>[]> {
      return db.select().from(t).where(tenantWhere(table, tenantId)).orderBy(desc(t.createdAt), desc(t.id));
    },
    async get(db: Queryable, tenantId: string, id: string): Promise<Row<T> | undefined> {
      const [row] = await db
        .select()
        .from(t)
        .where(tenantWhere(table, tenantId, eq(t.id, id)));
      return row;
    },
    async insert(db: Queryable, tenantId: string, values: Insert<T>): Promise<Row<T>> {
      const rows = (await db
        .insert(t)
        .values({ ...values, tenantId })
        .returning()) as Row<T>[];
      return rows[0] as Row<T>;
    },
    async update(
      db: Queryable,
      tenantId: string,
      id: string,
      patch: Partial<Insert<T>>,
    ): Promise<Row<T> | undefined> {
      const [row] = await db
        .update(t)
        .set(patch)
        .where(tenantWhere(table, tenantId, eq(t.id, id)))
        .returning();
      return row;
    },
    async remove(db: Queryable, tenantId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(t)
        .where(tenantWhere(table, tenantId, eq(t.id, id)))
        .returning({ id: t.id });
      return rows.length > 0;
    },
  };
}

/**
 * The list/get/remove of an admin resource whose API shape is `present(row)` (the parts of a
 * CrudService that are the same for every simple resource).
 */
export function presentedReads<T extends EntityTable, Api>(
  repo: ReturnType<typeof tenantRepo<T>>,
  present: (row: Row<T>) => Api,
) {
  return {
    async list(db: Queryable, tenantId: string): Promise<Api[]> {
      return (await repo.list(db, tenantId)).map(present);
    },
    async get(db: Queryable, tenantId: string, id: string): Promise<Api | undefined> {
      const row = await repo.get(db, tenantId, id);
      return row && present(row);
    },
    async remove(tx: Queryable, tenantId: string, id: string): Promise<Api | undefined> {
      const row = await repo.get(tx, tenantId, id);
      if (row) await repo.remove(tx, tenantId, id);
      return row && present(row);
    },
  };
}
