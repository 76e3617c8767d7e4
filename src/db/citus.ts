/**
 * Distribution by tenant on Citus (docs/operations.md, "Scaling beyond one database").
 *
 * Run by `migrate` after the SQL migrations. On a database with the `citus` extension it makes
 * the tables below reference or distributed tables; on plain PostgreSQL and PGlite it asks one
 * catalog question and does nothing. It looks at `pg_dist_partition` before each table, so running
 * it again (every start, every instance) changes nothing, and a table added by a later migration
 * is distributed on the next start.
 *
 * The lists are checked against drizzle.schema.ts by test/citus.test.ts: a new table must be
 * placed in one of them.
 */

/**
 * Read before the tenant is known, or by every tenant: copied whole to every node.
 * - `tenants`: the root every other row hangs off.
 * - `api_keys`: authentication looks a key up by its hash, before it knows the tenant, and the
 *   hash is unique across tenants (a unique index without `tenant_id` cannot be distributed).
 * - `provider_integrations`: a provider's webhook arrives at an endpoint id, unique across
 *   tenants, and is resolved to its tenant by it.
 * All three are small and written rarely (docs/decisions.md, "Citus: reference tables").
 */
export const REFERENCE_TABLES = ['tenants', 'api_keys', 'provider_integrations'] as const;

/**
 * Every tenant-owned table, distributed by `tenant_id` and colocated with the first one, so a
 * tenant's rows of every table live on one node and a transaction of one tenant stays on it.
 */
export const DISTRIBUTED_TABLES = [
  'events',
  'audit_logs',
  'idempotency_keys',
  'intents',
  'organizations',
  'products',
  'offers',
  'price_rules',
  'plan_links',
  'plan_change_rules',
  'promotions',
  'policies',
  'shipping_options',
  'carts',
  'cart_items',
  'orders',
  'usage_events',
  'payment_methods',
  'payment_sessions',
  'refunds',
  'credit_entries',
  'subscriptions',
  'provider_events',
  'webhook_subscriptions',
  'webhook_deliveries',
  'webhook_attempts',
  'billing_integrations',
  'billing_accounts',
  'billing_invoices',
  'billing_invoice_lines',
  'billing_payment_methods',
  'billing_payments',
  'billing_refunds',
  'billing_subscriptions',
  'billing_operations',
] as const;

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
 * Makes REFERENCE_TABLES reference tables and DISTRIBUTED_TABLES distributed by tenant_id,
 * skipping those already done. Run outside a transaction (each Citus call commits on its own, so
 * a failure halfway leaves the finished tables finished and the next run completes the rest),
 * under the migration lock so two instances do not race.
 *
 * `order_number_seq` needs nothing: Citus carries a sequence used by a distributed table's
 * default to the workers, and order numbers are taken with nextval() on the coordinator.
 */
export async function distributeForCitus(run: RunSql): Promise<DistributionResult> {
  if (!(await hasCitus(run))) return { citus: false, created: [] };
  const done = new Map(
    (await run(`select logicalrelid::regclass::text as name, partmethod from pg_dist_partition`)).map((r) => [
      String(r.name),
      String(r.partmethod),
    ]),
  );
  const created: string[] = [];
  for (const table of REFERENCE_TABLES) {
    if (done.has(table)) continue;
    await run(`select create_reference_table('${table}')`);
    created.push(table);
  }
  const [anchor] = DISTRIBUTED_TABLES;
  for (const table of DISTRIBUTED_TABLES) {
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
