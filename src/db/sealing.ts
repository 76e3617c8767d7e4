import { type SQL, sql } from 'drizzle-orm';
import { isSealed, type KeyRing } from '../core/key-ring.js';
import { type Queryable, rowsOf } from './client.js';
import type { SealedColumn } from './table-traits.js';

export interface SealReport {
  table: string;
  column: string;
  /** Values re-sealed by this pass. */
  resealed: number;
  /** Values still stored in clear, or under another key than the current one, after it. */
  remaining: number;
}

const BATCH = 500;
const id = (name: string) => sql.raw(`"${name}"`);

/**
 * Re-seals stored secrets: `mode: 'clear'` seals only values kept in clear (stored before sealing
 * existed; run at every start), `mode: 'rotate'` also re-seals everything not under the ring's
 * current key (`npm run cli -- encryption rotate`, after adding a new first key). Each value is
 * updated only if it is still the one read, so it is safe beside running servers.
 */
export async function resealSecrets(
  db: Queryable,
  ring: KeyRing,
  mode: 'clear' | 'rotate',
  /** Every sealed column (`TABLE_LAYOUT.sealed`, declared next to each table). */
  columns: readonly SealedColumn[],
): Promise<SealReport[]> {
  const reports: SealReport[] = [];
  for (const target of columns) {
    const column = id(target.column);
    const current = `ek1.${ring.currentId}.`;
    const notCurrent: SQL =
      mode === 'rotate'
        ? sql`left(${column}, ${current.length}) <> ${current}`
        : sql`${column} not like 'ek1.%' and ${column} !~ '^v1\\.[^.]*\\.[^.]*\\.[^.]*$'`;
    const keys = sql.join(target.key.map(id), sql`, `);
    let resealed = 0;
    let skipped = 0;
    for (;;) {
      const rows = rowsOf<Record<string, string>>(
        await db.execute(
          sql`select ${keys}, ${column} as value from ${id(target.table)}
              where ${column} is not null and ${notCurrent} limit ${BATCH} offset ${skipped}`,
        ),
      );
      for (const row of rows) {
        const value = row.value as string;
        let plain: string;
        try {
          plain = isSealed(value) ? ring.open(target.purpose, value) : value;
        } catch {
          skipped++; // sealed under a key the ring no longer has: left for an operator
          continue;
        }
        const match = sql.join(
          target.key.map((k) => sql`${id(k)} = ${row[k]}`),
          sql` and `,
        );
        await db.execute(
          sql`update ${id(target.table)} set ${column} = ${ring.seal(target.purpose, plain)}
              where ${match} and ${column} = ${value}`,
        );
        resealed++;
      }
      if (rows.length < BATCH) break;
    }
    const [left] = rowsOf<{ n: number | string }>(
      await db.execute(
        sql`select count(*) as n from ${id(target.table)} where ${column} is not null and ${notCurrent}`,
      ),
    );
    reports.push({ table: target.table, column: target.column, resealed, remaining: Number(left?.n ?? 0) });
  }
  return reports;
}
