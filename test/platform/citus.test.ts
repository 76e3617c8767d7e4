import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable, pgTable, uuid } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../../drizzle.schema.js';
import { distributeForCitus, hasCitus, type RunSql } from '../../src/db/citus.js';
import { type Database, rowsOf } from '../../src/db/client.js';
import { distributedTable, tableLayout } from '../../src/db/table-traits.js';
import { TABLE_LAYOUT } from '../../src/schema.js';
import { createScratchDatabase, testDatabase, usingPostgres } from '../harness.js';

const tables = (Object.values(schema) as unknown[])
  .filter((t): t is PgTable => is(t, PgTable))
  .map((t) => getTableConfig(t));

const { reference: REFERENCE_TABLES, distributed: DISTRIBUTED_TABLES } = {
  reference: [...TABLE_LAYOUT.reference],
  distributed: [...TABLE_LAYOUT.distributed],
};

function runner(database: Database): RunSql {
  return async (text) => rowsOf<Record<string, unknown>>(await database.db.execute(sql.raw(text)));
}

describe('distribution by tenant (Citus)', () => {
  it('places every table of drizzle.schema.ts: tenant-owned ones distributed, the others reference', () => {
    const names = tables.map((t) => t.name).sort();
    expect([...REFERENCE_TABLES, ...DISTRIBUTED_TABLES].sort()).toEqual(names);
    // Console users sign in by email alone, before any tenant is known: they, their sessions, links
    // and failed sign-ins are looked up across tenants, as API keys are.
    expect(REFERENCE_TABLES.sort()).toEqual([
      'api_keys',
      'console_link_tokens',
      'console_login_failures',
      'console_sessions',
      'console_users',
      'provider_integrations',
      'tenants',
    ]);
    for (const t of tables) {
      const tenantOwned = t.columns.some((c) => c.name === 'tenant_id');
      if (!tenantOwned) expect(REFERENCE_TABLES).toContain(t.name);
    }
  });

  it('refuses a table declared without its placement, and a distributed table without tenant_id', () => {
    const undeclared = pgTable('undeclared', { tenantId: uuid('tenant_id') });
    expect(() => tableLayout([undeclared])).toThrow(/undeclared: declare it with distributedTable/);
    const orphan = distributedTable(pgTable('orphan', { id: uuid('id') }));
    expect(() => tableLayout([orphan])).toThrow(/orphan: a distributed table needs tenant_id/);
  });

  let database: Database;
  beforeAll(async () => {
    database = await testDatabase();
  });

  it('is idempotent: run again after migrate, it changes nothing (a no-op without citus)', async () => {
    const run = runner(database);
    const citus = await hasCitus(run);
    for (let i = 0; i < 2; i++)
      expect(await distributeForCitus(run, TABLE_LAYOUT)).toEqual({ citus, created: [] });
    if (!citus) return;
    const placed = rowsOf<{ name: string; partmethod: string; colocationid: number }>(
      await database.db.execute(
        sql`select logicalrelid::regclass::text as name, partmethod, colocationid from pg_dist_partition`,
      ),
    );
    const method = new Map(placed.map((r) => [r.name, r.partmethod]));
    for (const t of REFERENCE_TABLES) expect(method.get(t), t).toBe('n');
    for (const t of DISTRIBUTED_TABLES) expect(method.get(t), t).toBe('h');
    const colocations = new Set(placed.filter((r) => r.partmethod === 'h').map((r) => r.colocationid));
    expect(colocations.size).toBe(1);
  });
});

describe.skipIf(!usingPostgres)('turning a populated PostgreSQL database into a Citus one', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  beforeAll(async () => {
    scratch = await createScratchDatabase();
  });
  afterAll(async () => {
    await scratch?.drop();
  });

  it('keeps the rows written before distribution, and a second run is a no-op', async () => {
    const run = runner(scratch.database);
    if (!(await hasCitus(run))) return;
    // Undo the distribution migrate did, write rows, then distribute again: the conversion path.
    for (const t of [...DISTRIBUTED_TABLES, ...REFERENCE_TABLES].reverse()) {
      await run(`select undistribute_table('${t}', cascade_via_foreign_keys => true)`).catch(() => {});
    }
    expect((await run(`select count(*)::int as n from pg_dist_partition`))[0]?.n).toBe(0);
    await run(`insert into tenants (id, name) values ('00000000-0000-7000-8000-000000000001', 'before')`);
    await run(`insert into events (tenant_id, id, type, occurred_at, payload)
      values ('00000000-0000-7000-8000-000000000001', '00000000-0000-7000-8000-000000000002', 'account.created', now(), '{}')`);
    const first = await distributeForCitus(run, TABLE_LAYOUT);
    expect(first.created.sort()).toEqual([...REFERENCE_TABLES, ...DISTRIBUTED_TABLES].sort());
    expect(await distributeForCitus(run, TABLE_LAYOUT)).toEqual({ citus: true, created: [] });
    expect((await run(`select count(*)::int as n from events`))[0]?.n).toBe(1);
    expect((await run(`select count(*)::int as n from tenants`))[0]?.n).toBe(1);
  });
});
