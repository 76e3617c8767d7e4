import { decide, type RateLimitDecision, type RateLimiter } from './limiter.js';

/** Timestamps of allowed requests, oldest first; `head` skips expired ones without shifting. */
interface Log {
  times: number[];
  head: number;
}

const SWEEP_EVERY = 10_000;

/** Sliding-log limiter for a single instance. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, Log>();
  private checks = 0;

  async check(bucket: string, limit: number, windowMs: number, nowMs: number): Promise<RateLimitDecision> {
    return this.checkSync(bucket, limit, windowMs, nowMs);
  }

  checkSync(bucket: string, limit: number, windowMs: number, nowMs: number): RateLimitDecision {
    if (++this.checks % SWEEP_EVERY === 0) this.sweep(nowMs - windowMs);
    let log = this.logs.get(bucket);
    if (!log) {
      log = { times: [], head: 0 };
      this.logs.set(bucket, log);
    }
    const cutoff = nowMs - windowMs;
    while (log.head < log.times.length && (log.times[log.head] as number) <= cutoff) log.head++;
    if (log.head > 1024 && log.head * 2 > log.times.length) {
      log.times = log.times.slice(log.head);
      log.head = 0;
    }
    const count = log.times.length - log.head;
    const allowed = count < limit;
    if (allowed) log.times.push(nowMs);
    const oldest = log.times[log.head] ?? nowMs;
    return decide(allowed, limit, allowed ? count + 1 : count, oldest, windowMs, nowMs);
  }

  /** Forgets buckets whose every request has left the window, so idle keys cost no memory. */
  private sweep(cutoff: number) {
    for (const [bucket, log] of this.logs) {
      const newest = log.times[log.times.length - 1];
      if (newest === undefined || newest <= cutoff) this.logs.delete(bucket);
    }
  }

  async ready(): Promise<void> {}

  async health(): Promise<'ok'> {
    return 'ok';
  }

  async close(): Promise<void> {}
}
