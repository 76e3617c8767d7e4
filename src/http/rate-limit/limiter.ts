/** Outcome of one rate-limit check, already shaped for the X-RateLimit-* headers. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the oldest counted request leaves the window. */
  resetAt: number;
  /** Seconds until a request would be allowed again (only when refused). */
  retryAfter: number;
}

/**
 * A true rolling window (sliding log): a request is allowed when fewer than `limit` requests were
 * allowed for `bucket` in the `windowMs` before `nowMs`. Refused requests are not counted.
 */
export interface RateLimiter {
  check(bucket: string, limit: number, windowMs: number, nowMs: number): Promise<RateLimitDecision>;
  /** Resolves once a shared store is connected (or gave up trying); immediate in process. */
  ready(timeoutMs: number): Promise<void>;
  /**
   * 'ok', or 'degraded' when a shared store is unreachable and the limiter fell back. Asks the
   * store itself (a readiness probe must not wait for a request to find out it is back).
   */
  health(): Promise<'ok' | 'degraded'>;
  close(): Promise<void>;
}

export function decide(
  allowed: boolean,
  limit: number,
  count: number,
  oldestMs: number,
  windowMs: number,
  nowMs: number,
): RateLimitDecision {
  const leavesAt = oldestMs + windowMs;
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - count),
    resetAt: Math.ceil(leavesAt / 1000),
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil((leavesAt - nowMs) / 1000)),
  };
}
