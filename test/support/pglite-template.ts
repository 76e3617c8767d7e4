import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { openPglite } from '../../src/db/client.js';
import { TABLE_LAYOUT } from '../../src/schema.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data directory (a tar from dumpDataDir) each test file starts from. */
    pgliteTemplate: string | undefined;
  }
}

/**
 * Global setup: on PGlite, run initdb and every migration once, and dump the result for each test
 * file's database to start from (loadDataDir) instead of doing both again. PostgreSQL runs need
 * nothing: each file opens a pool on the already migrated DATABASE_URL.
 */
export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    project.provide('pgliteTemplate', undefined);
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'cak-pglite-template-'));
  const file = path.join(dir, 'migrated.tar');
  const database = await openPglite(undefined);
  try {
    await database.migrate(TABLE_LAYOUT);
    // Drizzle keeps the driver's client on the handle.
    const client = (database.db as unknown as { $client: PGlite }).$client;
    const dump = await client.dumpDataDir('none');
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await database.close();
  }
  project.provide('pgliteTemplate', file);
  return () => rmSync(dir, { recursive: true, force: true });
}

export function loadTemplate(file: string): Blob {
  return new Blob([readFileSync(file)]);
}
