import pg from 'pg';

/**
 * Creating and dropping whole databases on a server, for tests and the bench (never the service):
 * on a Citus coordinator a new database is a cluster of its own. Citus does not carry
 * `CREATE DATABASE` to the workers, so the database is made on every node, with the extension,
 * and the coordinator learns its workers again.
 */

/** The URL of database `name` on `url`'s server. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs statements on one connection to `url`, in order. */
async function onServer(url: string, ...statements: string[]): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    for (const s of statements) await c.query(s);
  } finally {
    await c.end();
  }
}

/** The workers' URLs (same user, maintenance database) when `url` is a Citus coordinator; else none. */
async function citusWorkers(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows: ext } = await c.query(`select 1 from pg_extension where extname = 'citus'`);
    if (ext.length === 0) return [];
    const { rows } = await c.query<{ nodename: string; nodeport: number }>(
      `select nodename, nodeport from pg_dist_node where groupid <> 0 and noderole = 'primary' order by nodeport`,
    );
    return rows.map((r) => {
      const u = new URL(withDatabase(url, 'postgres'));
      u.hostname = r.nodename;
      u.port = String(r.nodeport);
      return u.toString();
    });
  } finally {
    await c.end();
  }
}

/**
 * Creates database `name` on `url`'s server (which must not have it) and answers its URL; on a
 * Citus coordinator (`url` naming a database with the extension), on every node, joined up, with
 * `shardCount` shards per distributed table when given (tests: a few, so that distributing a
 * scratch database takes seconds, not minutes).
 */
export async function createDatabase(url: string, name: string, shardCount?: number): Promise<string> {
  const workers = await citusWorkers(url);
  for (const node of [url, ...workers]) await onServer(node, `create database ${name}`);
  const created = withDatabase(url, name);
  if (workers.length > 0) {
    for (const node of [created, ...workers.map((w) => withDatabase(w, name))]) {
      await onServer(node, 'create extension if not exists citus');
    }
    const coordinator = new URL(url);
    const setup = [
      `select citus_set_coordinator_host('${coordinator.hostname}', ${coordinator.port || 5432})`,
    ];
    for (const w of workers.map((w) => new URL(w)))
      setup.push(`select citus_add_node('${w.hostname}', ${w.port})`);
    if (shardCount) setup.push(`alter database ${name} set citus.shard_count = ${shardCount}`);
    await onServer(created, ...setup);
  }
  return created;
}

/** Drops database `name` (if there) on `url`'s server and, on a Citus coordinator, its workers. */
export async function dropDatabase(url: string, name: string): Promise<void> {
  const workers = await citusWorkers(url).catch(() => []);
  for (const node of [url, ...workers]) await onServer(node, `drop database if exists ${name} with (force)`);
}
