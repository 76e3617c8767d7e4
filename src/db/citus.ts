import type { TableLayout } from './table-traits.js';

/**
 * Distribution by tenant on Citus (docs/operations.md, "Scaling beyond one database").
 *
 * Run by `migrate` after the SQL migrations. On a database with the `citus` extension it makes
 * the tables below reference or distributed tables; on plain PostgreSQL and PGlite it asks one
 * catalog question and does nothing. It looks at `pg_dist_partition` before each table, so running
 * it again (every start, every instance) changes nothing, and a table added by a later migration
 * is distributed on the next start.
 *
 * Which tables are reference tables and which are distributed is declared next to each table's
 * definition (src/db/table-traits.ts); src/schema.ts gathers them into the layout passed here.
 */

/** Runs one statement (no parameters) and answers its rows. */
export type RunSql = (text: string) => Promise<Record<string, unknown>[]>;

export interface DistributionResult {
  citus: boolean;
  /** Tables this run changed (empty when everything was already in place). */
  created: string[];
}

/** True when the database has the citus extension (the coordinator of a cluster). */
export async function hasCitus(run: RunSql): Promise<boolean> {
  const rows = await run(`select 1 from pg_extension where extname = 'citus'`);
  return rows.length > 0;
}

/**
 * Makes the layout's reference tables reference tables and its distributed tables distributed by
 * tenant_id (colocated with the first),
 * skipping those already done. Run outside a transaction (each Citus call commits on its own, so
 * a failure halfway leaves the finished tables finished and the next run completes the rest),
 * under the migration lock so two instances do not race.
 *
 * `order_number_seq` needs nothing: Citus carries a sequence used by a distributed table's
 * default to the workers, and order numbers are taken with nextval() on the coordinator.
 */
export async function distributeForCitus(
  run: RunSql,
  layout: Pick<TableLayout, 'reference' | 'distributed'>,
): Promise<DistributionResult> {
  if (!(await hasCitus(run))) return { citus: false, created: [] };
  const done = new Map(
    (await run(`select logicalrelid::regclass::text as name, partmethod from pg_dist_partition`)).map((r) => [
      String(r.name),
      String(r.partmethod),
    ]),
  );
  const created: string[] = [];
  for (const table of layout.reference) {
    if (done.has(table)) continue;
    await run(`select create_reference_table('${table}')`);
    created.push(table);
  }
  const [anchor] = layout.distributed;
  for (const table of layout.distributed) {
    if (done.has(table)) continue;
    const colocate = table === anchor ? `'default'` : `'${anchor}'`;
    await run(`select create_distributed_table('${table}', 'tenant_id', colocate_with => ${colocate})`);
    created.push(table);
  }
  // Rows that were on the coordinator before (a PostgreSQL deployment turned into a Citus one)
  // are copied to the shards by the calls above; the local copies are then dead weight.
  if (created.length > 0) {
    await run(`select truncate_local_data_after_distributing_table(logicalrelid)
      from pg_dist_partition where logicalrelid::regclass::text = any(array['${created.join("','")}'])
        and partmethod = 'h'`);
  }
  return { citus: true, created };
}
