import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { purgeExpired } from './store.js';

const EVERY_MS = 10 * 60_000;

/**
 * Deletes idempotency records past their 24 h retention now and every 10 minutes. Expired records
 * are already ignored by lookups; this only reclaims space, so several instances running it is
 * harmless. Returns a function that stops it.
 */
export function startIdempotencyPurge(deps: { db: Db; clock: Clock; logger: Logger }): () => void {
  const run = () =>
    purgeExpired(deps.db, deps.clock.now())
      .then((count) => {
        if (count > 0) deps.logger.info({ count }, 'purged expired idempotency records');
      })
      .catch((err) => deps.logger.warn({ err }, 'idempotency purge failed; will retry'));
  void run();
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
