import type { Database } from '../../src/db/client.js';
import { createScratchDatabase, ownPgliteDatabase, usingPostgres } from '../harness.js';

/**
 * A database of the calling file's own (a scratch one on PostgreSQL, a PGlite from the template
 * otherwise): the gauges count every tenant's rows and the delivery worker sends every tenant's
 * deliveries, so other files' rows would blur the figures. `drop()` when done.
 */
export async function ownDatabase(): Promise<{ database: Database; drop(): Promise<void> }> {
  if (usingPostgres) {
    const scratch = await createScratchDatabase();
    return { database: scratch.database, drop: scratch.drop };
  }
  const database = await ownPgliteDatabase();
  return { database, drop: () => database.close() };
}
