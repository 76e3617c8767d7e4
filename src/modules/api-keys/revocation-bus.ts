import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Tells every instance that a key was revoked, so none keeps serving it from its cache. */
export interface RevocationBus {
  /** Resolves once sent (or once sending failed, which is logged). */
  publish(keyId: string): Promise<void>;
  close(): Promise<void>;
}

const CHANNEL = 'cak:api-key-revoked';

/**
 * Revocations over Redis publish/subscribe: `onRevoked` runs in every subscribed process (this one
 * included) for each published key id. While Redis is unreachable a revocation reaches the other
 * instances only when their cache entry expires (API_KEY_CACHE_TTL_MS), as without Redis.
 */
export function redisRevocationBus(
  url: string,
  logger: Logger,
  onRevoked: (keyId: string) => void,
): RevocationBus {
  const options = { maxRetriesPerRequest: 0, connectTimeout: 1_000 } as const;
  const publisher = new Redis(url, options);
  const subscriber = new Redis(url, options);
  const warn = (what: string) => (err: unknown) => logger.warn({ err }, `key revocations: ${what}`);
  publisher.on('error', () => {}); // reported where it matters: a publish that fails
  subscriber.on('error', () => {});
  subscriber.subscribe(CHANNEL).catch(warn('could not subscribe'));
  subscriber.on('message', (channel: string, keyId: string) => {
    if (channel === CHANNEL) onRevoked(keyId);
  });
  return {
    async publish(keyId) {
      await publisher
        .publish(CHANNEL, keyId)
        .then(() => undefined)
        .catch(warn(`could not announce the revocation of ${keyId}`));
    },
    async close() {
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}
