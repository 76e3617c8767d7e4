import { defineConfig } from 'vitest/config';

// The reliability suite (test/reliability/): npm run test:reliability runs it in full;
// RELIABILITY_SMOKE=1 (npm run test:reliability:smoke, used by .ci/run) runs the short version:
// one kill point, 2,000 fuzzed requests, no soak.
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    pool: 'forks',
    // Child servers, fuzzing and the soak each want the CPU: one file at a time.
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    reporters: ['default'],
  },
});
