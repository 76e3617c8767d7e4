import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

/** A table owned by a tenant: every row carries `tenant_id`. */
export type TenantTable = PgTable & { tenantId: PgColumn };

/**
 * The only way module code should build a WHERE clause on a tenant-owned table:
 * it always includes `tenant_id = $tenant`, so a foreign tenant's row is simply not found (404).
 */
export function tenantWhere(table: TenantTable, tenantId: string, ...conditions: (SQL | undefined)[]): SQL {
  return and(eq(table.tenantId, tenantId), ...conditions) as SQL;
}
