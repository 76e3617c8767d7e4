import { is } from 'drizzle-orm';
import { getTableConfig, type PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { SealPurpose } from '../core/key-ring.js';

/**
 * What a table is beyond its columns, declared next to its definition (one place to edit when a
 * table is added): how Citus places it, and which of its columns keep a secret sealed by the key
 * ring. `src/schema.ts` gathers every table; `tableLayout` turns their traits into the lists the
 * migration (db/citus.ts) and the sealing pass (db/sealing.ts) work from.
 */

/** A column whose value is sealed at rest, addressed by the columns of its row's primary key. */
export interface SealedColumnTrait {
  column: PgColumn;
  key: readonly PgColumn[];
  purpose: SealPurpose;
}

interface TableTraits {
  /**
   * `distributed`: tenant-owned, distributed by `tenant_id` and colocated with the others, so a
   * tenant's rows of every table live on one node. `reference`: read before the tenant is known or
   * by every tenant, copied whole to every node (docs/decisions.md, "Citus: reference tables").
   */
  citus: 'distributed' | 'reference';
  sealed: readonly SealedColumnTrait[];
}

const traits = new WeakMap<PgTable, TableTraits>();

function declare<T extends PgTable>(
  table: T,
  citus: TableTraits['citus'],
  sealed?: (t: T) => readonly SealedColumnTrait[],
): T {
  traits.set(table, { citus, sealed: sealed?.(table) ?? [] });
  return table;
}

/** A tenant-owned table (it has `tenant_id`), distributed by it on Citus. */
export const distributedTable = <T extends PgTable>(
  table: T,
  sealed?: (t: T) => readonly SealedColumnTrait[],
) => declare(table, 'distributed', sealed);

/** A table copied whole to every Citus node; say why next to it. */
export const referenceTable = <T extends PgTable>(
  table: T,
  sealed?: (t: T) => readonly SealedColumnTrait[],
) => declare(table, 'reference', sealed);

/** A sealed column by SQL names, so the passes over it need no module's internals. */
export interface SealedColumn {
  table: string;
  column: string;
  key: readonly string[];
  purpose: SealPurpose;
}

/** Every table's placement and sealed columns, in the order the tables were gathered. */
export interface TableLayout {
  reference: readonly string[];
  /** The first is the colocation anchor the others are colocated with. */
  distributed: readonly string[];
  sealed: readonly SealedColumn[];
}

/**
 * The layout of the tables among `exports` (a schema module's exports; anything that is not a
 * table is skipped). A table without declared traits, or a distributed one without `tenant_id`,
 * is an error at start-up, not a silent misplacement.
 */
export function tableLayout(exports: Iterable<unknown>): TableLayout {
  const reference: string[] = [];
  const distributed: string[] = [];
  const sealed: SealedColumn[] = [];
  for (const table of exports) {
    if (!is(table, PgTable)) continue;
    const config = getTableConfig(table);
    const declared = traits.get(table);
    if (!declared)
      throw new Error(`table ${config.name}: declare it with distributedTable() or referenceTable()`);
    if (declared.citus === 'distributed' && !config.columns.some((c) => c.name === 'tenant_id'))
      throw new Error(`table ${config.name}: a distributed table needs tenant_id`);
    (declared.citus === 'distributed' ? distributed : reference).push(config.name);
    for (const s of declared.sealed)
      sealed.push({
        table: config.name,
        column: s.column.name,
        key: s.key.map((k) => k.name),
        purpose: s.purpose,
      });
  }
  return { reference, distributed, sealed };
}
