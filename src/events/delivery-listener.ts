import pg from 'pg';
import type { Logger } from 'pino';
import { DELIVERY_CHANNEL, type QueuedBy, queuedByOf } from './delivery-signal.js';

const RECONNECT_MS = 1_000;

/**
 * LISTENs on the delivery channel on a connection of its own (not from the pool: a pooled
 * connection would drop the LISTEN when returned) and calls `onNotify` for each message.
 * Reconnects after errors; meanwhile the worker's polling covers. Returns the stop function.
 * `onNotify` hears who queued (the payload's tenants), or undefined for anyone.
 */
export function listenForDeliveries(
  url: string,
  logger: Logger,
  onNotify: (queuedBy: QueuedBy) => void,
): () => Promise<void> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
    client = c;
    c.on('notification', (message) => {
      if (message.channel === DELIVERY_CHANNEL) onNotify(queuedByOf(message.payload));
    });
    c.on('error', (err) => {
      logger.warn({ err }, 'webhook LISTEN connection failed; reconnecting');
      reconnect(c);
    });
    try {
      await c.connect();
      await c.query(`listen ${DELIVERY_CHANNEL}`);
      onNotify(undefined); // anything queued while we were not listening, by anyone
    } catch (err) {
      logger.warn({ err }, 'webhook LISTEN connection failed; reconnecting');
      reconnect(c);
    }
  };

  const reconnect = (failed: pg.Client) => {
    if (stopped || client !== failed) return;
    client = undefined;
    failed.end().catch(() => {});
    retry = setTimeout(() => void connect(), RECONNECT_MS);
  };

  void connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
