import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { decide, type RateLimitDecision, type RateLimiter } from './limiter.js';
import { MemoryRateLimiter } from './memory-limiter.js';

/**
 * Sliding log in a sorted set, in one atomic script, so every instance sharing the Redis shares
 * one exact limit. Scores are request times in ms; members are unique per request.
 * Returns { allowed (1|0), count after the decision, oldest counted time }.
 */
const SLIDING_LOG = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return { allowed, count, oldest[2] or now }
`;

type SlidingLogRedis = Redis & {
  slidingLog(
    key: string,
    now: number,
    window: number,
    limit: number,
    member: string,
  ): Promise<[number, number, string]>;
};

const LOG_EVERY_MS = 30_000;

/**
 * Redis-backed limiter. When Redis cannot answer it fails open to an in-process limiter (each
 * instance then limits on its own), logs it, and reports `degraded` until Redis answers again.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: SlidingLogRedis;
  private readonly fallback = new MemoryRateLimiter();
  private degraded = false;
  private lastLoggedAt = 0;
  private sequence = 0;

  constructor(
    url: string,
    private readonly logger: Logger,
    private readonly prefix = 'cak:rl:',
  ) {
    this.redis = new Redis(url, {
      // Fail fast rather than queue: a rate-limit check must never hold a request up.
      enableOfflineQueue: false,
      // Concurrent checks share one write to the socket: fewer syscalls per request under load.
      enableAutoPipelining: true,
      maxRetriesPerRequest: 0,
      connectTimeout: 1_000,
      commandTimeout: 500,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    }) as SlidingLogRedis;
    this.redis.defineCommand('slidingLog', { numberOfKeys: 1, lua: SLIDING_LOG });
    this.redis.on('error', (err) => this.noteFailure(err));
  }

  async check(bucket: string, limit: number, windowMs: number, nowMs: number): Promise<RateLimitDecision> {
    try {
      const member = `${nowMs}:${process.pid}:${++this.sequence}:${Math.random().toString(36).slice(2, 8)}`;
      const [allowed, count, oldest] = await this.redis.slidingLog(
        this.prefix + bucket,
        nowMs,
        windowMs,
        limit,
        member,
      );
      this.recovered();
      return decide(allowed === 1, limit, count, Number(oldest), windowMs, nowMs);
    } catch (err) {
      this.noteFailure(err);
      return this.fallback.checkSync(bucket, limit, windowMs, nowMs);
    }
  }

  async ready(timeoutMs: number): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.redis.once('ready', done);
    });
  }

  private noteFailure(err: unknown) {
    this.degraded = true;
    const now = Date.now();
    if (now - this.lastLoggedAt < LOG_EVERY_MS) return;
    this.lastLoggedAt = now;
    this.logger.warn({ err }, 'Redis unreachable: rate limits fall back to this instance only');
  }

  async health(): Promise<'ok' | 'degraded'> {
    try {
      await this.redis.ping();
      this.recovered();
      return 'ok';
    } catch (err) {
      this.noteFailure(err);
      return 'degraded';
    }
  }

  private recovered() {
    if (!this.degraded) return;
    this.degraded = false;
    this.logger.info('Redis rate limiter recovered');
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
