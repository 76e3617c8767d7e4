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
 * In a fresh process, tuned as the server tunes itself at start or not: how many of ten new
 * objects, one after each round of 100,000 kept alive from the same site, were made in the old
 * generation (V8's `%InYoungGeneration`, hence `--allow-natives-syntax`). When V8 decides depends
 * on when its collections run, so each round is probed, not only the last.
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
      if (!%InYoungGeneration(make(-1))) old++;
    }
    process.stdout.write(String(old));`;
  const args = ['--allow-natives-syntax', '--input-type=module', '-e', script];
  return Number(execFileSync(process.execPath, args, { encoding: 'utf8' }));
}

describe('heap tuning', () => {
  it("turns V8's allocation-site pretenuring off: a site that made long-lived objects still makes young ones", (context) => {
    // The control, V8's default: the site is pretenured and some of its new objects are made old,
    // as a request's objects were when made where the app's long-lived state was made. Under CI's
    // load some untuned runs were not pretenured at all; with no control there is nothing to
    // compare, so the test is skipped rather than passed.
    const untuned = [madeOld(false), madeOld(false), madeOld(false)];
    if (untuned.every((old) => old === 0))
      return context.skip('V8 pretenured nothing untuned in three runs: no control on this machine');
    expect(madeOld(true)).toBe(0);
  });
});
