import type { RequestErrorLog } from '../observability/request-errors.js';
import type { ServiceDeps } from '../unit-of-work/index.js';
import type { KeyResolver } from './auth.js';
import type { SessionResolver } from './console-session.js';
import type { RateLimiter } from './rate-limit/limiter.js';

/** What the HTTP edge and the route files need: the services' deps, plus key and session lookup and rate limits. */
export interface Deps extends ServiceDeps {
  apiKeys: KeyResolver;
  /** Console sessions (the `cak_console` cookie), the team module's. */
  consoleSessions: SessionResolver;
  /** Shared through Redis when REDIS_URL is set, in-process otherwise. */
  rateLimiter: RateLimiter;
  /** This instance's recent error responses per tenant (GET /admin/request-errors). */
  requestErrors: RequestErrorLog;
}
