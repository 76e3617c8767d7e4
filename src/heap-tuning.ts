import v8 from 'node:v8';
import type { Config } from './config.js';

/**
 * Bounds the old generation's headroom over the live heap. V8 lets it grow to up to four times
 * the live heap before a full collection; with the app's ~130 MB live, a request that allocates a
 * lot of short-lived garbage (the ACP feed export: about 11 KB per product) pushed the process's
 * RSS up by 80-180 MB before a collection freed it, though nothing was retained. At 20% the same
 * export grows it by 6-25 MB (bench/RESULTS.md, "ACP product feed"). The flag is read at each
 * collection, so setting it at start takes effect; `HEAP_GROWING_PERCENT=0` leaves V8's factor.
 */
export function tuneHeap(config: Pick<Config, 'heapGrowingPercent'>): void {
  if (config.heapGrowingPercent > 0)
    v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
}
