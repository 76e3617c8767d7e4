import { sql } from 'drizzle-orm';
import { type Queryable, rowsOf } from './client.js';

const citusByHandle = new WeakMap<object, Promise<boolean>>();

/**
 * Whether `db` is a Citus coordinator, asked once per handle: the few cross-tenant statements
 * (the webhook delivery worker's claims) take a per-tenant form there and keep their
 * one-statement form on PostgreSQL and PGlite.
 */
export function isCitus(db: Queryable): Promise<boolean> {
  let known = citusByHandle.get(db);
  if (!known) {
    known = db
      .execute(sql`select 1 from pg_extension where extname = 'citus'`)
      .then((r) => rowsOf(r).length > 0);
    known.catch(() => citusByHandle.delete(db));
    citusByHandle.set(db, known);
  }
  return known;
}
