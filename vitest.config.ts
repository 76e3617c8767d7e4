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
    pool: 'forks',
    // Each file opens its own database (PGlite in memory, or a pool to DATABASE_URL).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 90_000,
    reporters: ['default'],
  },
});
