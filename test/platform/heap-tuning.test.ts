import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';

// src/heap-tuning.ts as JavaScript, imported by a child that runs without tsx: with tsx's loader
// in the process, V8 did not pretenure this small site even untuned, so the control could not fail.
const HEAP_TUNING_URL = `data:text/javascript;base64,${Buffer.from(
  transformSync(readFileSync(new URL('../../src/heap-tuning.ts', import.meta.url), 'utf8'), {
    loader: 'ts',
    format: 'esm',
  }).code,
).toString('base64')}`;

/**
 * In a fresh process, tuned as the server tunes itself at start or not: how many of ten rounds,
 * each keeping 100,000 objects from one site alive, ended with the last of them made in the old
 * generation (V8's `%InYoungGeneration`, hence `--allow-natives-syntax`).
 *
 * V8 decides to pretenure a site only at a scavenge that finds the young generation at its
 * maximum size. Left to grow on its own, the young generation sometimes reached its maximum only
 * after the last decision point, and the untuned control pretenured nothing (2 processes in 90 here,
 * and three in a row under CI's load). Pinned at 4 MB, every scavenge is at the maximum: the
 * control made the last object old in 10 of 10 rounds in each of 148 processes, 48 run at once.
 * The probe is the hot loop's own last object: an object made by the same function called from
 * elsewhere may run code that has not taken the site's decision yet.
 */
function madeOld(tuned: boolean): number {
  const script = `
    ${tuned ? `const { tuneHeap } = await import(${JSON.stringify(HEAP_TUNING_URL)}); tuneHeap({ heapGrowingPercent: 20 });` : ''}
    const make = (i) => ({ id: i, tags: [i, i + 1] });
    const kept = [];
    const fill = (n) => { for (let i = 0; i < n; i++) kept.push(make(i)); };
    let old = 0;
    for (let round = 0; round < 10; round++) {
      fill(100000);
      if (!%InYoungGeneration(kept[kept.length - 1])) old++;
    }
    process.stdout.write(String(old));`;
  const args = [
    '--allow-natives-syntax',
    '--min-semi-space-size=4',
    '--max-semi-space-size=4',
    '--input-type=module',
    '-e',
    script,
  ];
  return Number(execFileSync(process.execPath, args, { encoding: 'utf8' }));
}

describe('heap tuning', () => {
  it("turns V8's allocation-site pretenuring off: a site that made long-lived objects still makes young ones", () => {
    // The control, V8's default: the site is pretenured, as a request's objects were when made
    // where the app's long-lived state was made.
    expect(madeOld(false)).toBeGreaterThanOrEqual(5);
    expect(madeOld(true)).toBe(0);
  });
});
