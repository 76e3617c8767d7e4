import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The client workspace from its TypeScript sources (examples import it by package name).
  resolve: {
    alias: {
      '@commerce-agent/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The reliability suite (crash, outage, fuzz, soak) runs on its own: npm run test:reliability.
    exclude: ['test/reliability/**', '**/node_modules/**'],
    setupFiles: ['test/support/one-query-per-connection.ts'],
    // On PGlite: initdb and the migrations once, for every file's database to start from.
    // src/ compiled once for the tests that start the server, worker or CLI as child processes.
    globalSetup: ['test/support/pglite-template.ts', 'test/support/built-src.ts'],
    pool: 'forks',
    // Test files run one after another in each worker process and share its module cache (the
    // app's modules are imported once per worker, not once per file) and its database (PGlite in
    // memory started from the migrated template, or a pool to DATABASE_URL). Tests isolate by
    // tenant, as they always did on PostgreSQL, where every file shares one database.
    isolate: false,
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 90_000,
    reporters: ['default'],
  },
});
