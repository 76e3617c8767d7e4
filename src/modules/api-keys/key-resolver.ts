import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { AppEnv } from '../../config.js';
import type { Db } from '../../db/client.js';
import { hashKey, parseKeyEnvironment } from './key-material.js';
import type { RevocationBus } from './revocation-bus.js';
import { type ApiKey, findKeyByHash, touchLastUsed } from './service.js';

const MAX_ENTRIES = 10_000;
const LAST_USED_EVERY_MS = 60_000;

interface Entry {
  key: ApiKey | null;
  expiresAt: number;
}

/**
 * Resolves a presented secret to its key, caching by hash for `ttlMs` (unknown keys too, so a
 * flood of garbage keys cannot hammer the database). A revocation takes effect at once on the
 * instance that revoked and, with Redis (`connect`), on every other instance; without Redis,
 * within `ttlMs` there.
 */
export class ApiKeyResolver {
  private readonly cache = new Map<string, Entry>();
  private readonly lastTouched = new Map<string, number>();
  /** Lookups in flight by hash: a burst of requests with one cold key makes one database read. */
  private readonly inFlight = new Map<string, Promise<ApiKey | null>>();
  /** Bumped by every revocation: a lookup that started before one is not cached. */
  private generation = 0;
  private revocations: RevocationBus | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly logger: Logger,
  ) {}

  environmentOf(secret: string): AppEnv | null {
    return parseKeyEnvironment(secret);
  }

  async resolve(secret: string): Promise<ApiKey | null> {
    const hash = hashKey(secret);
    const now = this.clock.now().getTime();
    const hit = this.cache.get(hash);
    if (hit && hit.expiresAt > now) return hit.key;
    const pending = this.inFlight.get(hash);
    if (pending) return pending;
    const lookup = this.lookup(hash, now);
    this.inFlight.set(hash, lookup);
    try {
      return await lookup;
    } finally {
      if (this.inFlight.get(hash) === lookup) this.inFlight.delete(hash);
    }
  }

  private async lookup(hash: string, now: number): Promise<ApiKey | null> {
    const generation = this.generation;
    const key = (await findKeyByHash(this.db, hash)) ?? null;
    if (this.ttlMs > 0 && generation === this.generation) {
      this.cache.delete(hash);
      if (this.cache.size >= MAX_ENTRIES) {
        const oldest = this.cache.keys().next().value;
        if (oldest !== undefined) this.cache.delete(oldest);
      }
      this.cache.set(hash, { key, expiresAt: now + this.ttlMs });
    }
    return key;
  }

  /** Drops a revoked key from this instance's cache, and tells the other instances (Redis). */
  forget(keyId: string): void {
    this.drop(keyId);
    void this.revocations?.publish(keyId);
  }

  /** Sends revocations to, and takes them from, the other instances. */
  connect(revocations: RevocationBus): void {
    this.revocations = revocations;
  }

  async close(): Promise<void> {
    await this.revocations?.close();
  }

  /** Drops a key from this instance's cache (a revocation here or on another instance). */
  drop(keyId: string): void {
    this.generation++;
    this.inFlight.clear();
    for (const [hash, entry] of this.cache) if (entry.key?.id === keyId) this.cache.delete(hash);
  }

  /** Records use at most once a minute per key, off the request path; failures are only logged. */
  markUsed(key: ApiKey): void {
    const now = this.clock.now();
    const last = this.lastTouched.get(key.id) ?? 0;
    if (now.getTime() - last < LAST_USED_EVERY_MS) return;
    this.lastTouched.set(key.id, now.getTime());
    touchLastUsed(this.db, key.tenantId, key.id, now).catch((err) =>
      this.logger.warn({ err, keyId: key.id }, 'could not record key use'),
    );
  }
}
