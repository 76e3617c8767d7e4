import v8 from 'node:v8';
import type { Config } from './config.js';

/**
 * Two V8 settings for a server whose requests make much short-lived garbage, set at start (V8
 * reads both as it goes, so setting them here takes effect; bench/RESULTS.md, "Allocation-site
 * pretenuring"):
 *
 * - No allocation-site pretenuring. V8 samples where objects and arrays are made, and once nearly
 *   all of one site's sampled objects outlived a young collection, it makes that site's objects in
 *   the old generation from then on. In this server that turned short-lived objects into old
 *   garbage: under POST /orders about 28 KB an order reached the old generation (9 KB without),
 *   a full collection came every few seconds, and an order took 8-18% more CPU; a 100,000-product
 *   feed export grew the RSS by up to 80-180 MB at V8's default heap growth (6-13 MB without).
 * - The old generation's headroom over the live heap bounded to `heapGrowingPercent` (V8 lets it
 *   grow to up to four times the live heap before a full collection). With pretenuring off, 20%
 *   keeps the RSS under order load 10-65 MB lower for 1-6% of an order's CPU; 0 leaves V8's factor.
 */
export function tuneHeap(config: Pick<Config, 'heapGrowingPercent'>): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
  if (config.heapGrowingPercent > 0)
    v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
}
