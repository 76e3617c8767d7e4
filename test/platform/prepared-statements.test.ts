import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Database, rowsOf } from '../../src/db/client.js';
import { testDatabase, usingPostgres } from '../harness.js';

// PostgreSQL only: PGlite has no connection pool to wrap.
describe.skipIf(!usingPostgres)('named (prepared) statements on PostgreSQL', () => {
  let database: Database;
  // The worker's shared database (test files share a worker process): not closed here.
  beforeAll(async () => {
    database = await testDatabase();
  });

  const preparedOnThisConnection = sql`select statement from pg_prepared_statements where not from_sql`;

  it('a parameterised query is prepared once per connection and answers for every parameter', async () => {
    const text = 'select $1::int + 1 as n';
    await database.db.transaction(async (tx) => {
      const first = rowsOf<{ n: number }>(await tx.execute(sql`select ${41}::int + 1 as n`));
      const second = rowsOf<{ n: number }>(await tx.execute(sql`select ${1}::int + 1 as n`));
      expect([first[0]?.n, second[0]?.n]).toEqual([42, 2]);
      // No parameters: not named, so it does not list itself.
      const statements = rowsOf<{ statement: string }>(await tx.execute(preparedOnThisConnection));
      expect(statements.filter((s) => s.statement === text)).toHaveLength(1);
    });
  });

  it('a failed prepared statement leaves the connection usable, and the statement works again', async () => {
    await expect(database.db.execute(sql`select 1 / ${0}::int as n`)).rejects.toThrow();
    for (let i = 0; i < 15; i++) {
      const rows = rowsOf<{ n: number }>(await database.db.execute(sql`select 10 / ${i + 1}::int as n`));
      expect(rows[0]?.n).toBe(Math.trunc(10 / (i + 1)));
    }
  });
});
