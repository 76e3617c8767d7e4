import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import type { Logger } from 'pino';
import { distributeForCitus, type RunSql } from './citus.js';
import { type DataDirLock, lockDataDir } from './data-dir-lock.js';
import { prepareStatementsOn } from './prepared-statements.js';
import { keepPrivate } from './private-files.js';
import { traceQueriesOnPglite, traceQueriesOnPool } from './query-spans.js';
import type { TableLayout } from './table-traits.js';
import { guardRootHandle } from './transaction-guard.js';

export type Db = PgDatabase<PgQueryResultHKT>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything queries can run on: the pool or an open transaction. */
export type Queryable = Db | Tx;

export interface Database {
  readonly db: Db;
  readonly kind: 'postgres' | 'pglite';
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /**
   * Applies pending migrations, then (on a Citus coordinator) distributes the tables by tenant;
   * safe to run from several instances at once. `layout`: the tables' placement (src/schema.ts).
   */
  migrate(layout: Pick<TableLayout, 'reference' | 'distributed'>): Promise<void>;
  /**
   * Another pool of `size` connections to the same database (PostgreSQL), for background work
   * that must not wait behind requests queued for the main pool, nor take their connections.
   * Absent on PGlite: it has one connection.
   */
  separatePool?(size: number): Database;
  /** The pool's connections now (PostgreSQL; PGlite has one connection and no pool). */
  poolStats?(): { size: number; inUse: number; idle: number; waiting: number };
  close(): Promise<void>;
}

const MIGRATIONS = fileURLToPath(new URL('../../drizzle', import.meta.url));
// Arbitrary constant: the advisory lock that serialises migrations across instances.
const MIGRATION_LOCK_ID = 7_242_019;

export interface PostgresOptions {
  url: string;
  poolSize?: number;
  /**
   * How long a query may wait for a connection (all busy, or one being opened) before failing:
   * callers turn a busy pool into 503 `overloaded`, a server that does not answer into 503
   * `service_unavailable`. Requests queue meanwhile; waiting is not an outage.
   */
  waitMs?: number;
  logger?: Logger;
}

/**
 * bigint (int8) columns as numbers, like PGlite: every amount and quantity we store is a bigint
 * bounded far inside the exact range of a double (MAX_TOTAL_CENTS), so raw reads and Drizzle's
 * agree on both drivers. A value beyond that range stays exact as a BigInt. Set on node-postgres'
 * global parsers: Drizzle passes its own per-query parsers, which fall back to these.
 */
const INT8 = 20;
pg.types.setTypeParser(INT8, (text: string) => {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
});

export function openPostgres({ url, poolSize = 10, waitMs = 5_000, logger }: PostgresOptions): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: waitMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: 30_000,
  });
  pool.on('error', (err) => logger?.warn({ err }, 'idle PostgreSQL connection failed'));
  // Tracing wraps the client first, so naming wraps it: the span sees the statement's name.
  traceQueriesOnPool(pool);
  prepareStatementsOn(pool);
  const db = guardRootHandle(drizzlePg({ client: pool }) as unknown as Db);
  return {
    db,
    kind: 'postgres',
    async ping() {
      await pool.query('select 1');
    },
    async migrate(layout) {
      const client = await pool.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
        await migratePg(drizzlePg({ client }), { migrationsFolder: MIGRATIONS });
        // On a Citus coordinator, distribute by tenant; one catalog read and nothing else elsewhere.
        await distributeForCitus(async (text) => (await client.query(text)).rows, layout);
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => {});
        client.release();
      }
    },
    poolStats: () => ({
      size: poolSize,
      inUse: pool.totalCount - pool.idleCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    separatePool: (size) => openPostgres({ url, poolSize: size, waitMs, ...(logger ? { logger } : {}) }),
    async close() {
      await pool.end();
    },
  };
}

/**
 * Embedded PostgreSQL (PGlite). `dataDir` undefined means in memory (tests). `loadDataDir`
 * starts it from a dump (`dumpDataDir`) instead of an empty cluster: tests start every file's
 * database from one migrated template instead of running initdb and the migrations again.
 */
export async function openPglite(
  dataDir: string | undefined,
  options: { loadDataDir?: Blob } = {},
): Promise<Database> {
  let lock: DataDirLock | undefined;
  if (dataDir) {
    keepPrivate(dataDir);
    lock = lockDataDir(dataDir);
  }
  try {
    const client = await PGlite.create({
      // Catalog search's typo tolerance (migration 0024 creates the extension).
      extensions: { pg_trgm },
      ...(dataDir ? { dataDir: path.join(dataDir, 'pgdata') } : {}),
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    });
    traceQueriesOnPglite(client);
    const db = guardRootHandle(drizzlePglite({ client }) as unknown as Db);
    return {
      db,
      kind: 'pglite',
      async ping() {
        await db.execute(sql`select 1`);
      },
      async migrate(layout) {
        await migratePglite(drizzlePglite({ client }), { migrationsFolder: MIGRATIONS });
        await distributeForCitus(pgliteRunner(client), layout);
      },
      async close() {
        try {
          if (!client.closed) await client.close();
        } finally {
          lock?.release();
        }
      },
    };
  } catch (err) {
    lock?.release();
    throw err;
  }
}

function pgliteRunner(client: PGlite): RunSql {
  return async (text) => (await client.query<Record<string, unknown>>(text)).rows;
}

/** Rows of a raw `db.execute(sql...)` result: node-postgres and PGlite both answer `{ rows }`. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/** Rows changed by a statement without RETURNING (node-postgres: rowCount, PGlite: affectedRows). */
export function affectedRows(result: unknown): number {
  const r = result as { rowCount?: number | null; affectedRows?: number };
  return r.rowCount ?? r.affectedRows ?? 0;
}
