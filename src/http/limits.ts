import type { RateTier } from '../core/context.js';

/** Requests per rolling 60-second window, by key tier (SPEC.md section 8). */
export const RATE_LIMIT_TIERS: Record<RateTier, number> = { standard: 60, premium: 300, unlimited: 10_000 };
export const RATE_LIMIT_WINDOW_SECONDS = 60;
/**
 * Payment provider callbacks per rolling window from one address: a provider sends bursts from a
 * few addresses (a busy tenant's settlements), far more than a client without a key may.
 */
export const PROVIDER_CALLBACKS_PER_WINDOW = 3_000;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
export const IDEMPOTENCY_RETENTION_HOURS = 24;
/**
 * Levels of objects and arrays a JSON body may nest (the body itself is the first): deeper is
 * `400 validation_failed` (`rule: maxDepth`) before anything reads it. Far beyond any real body
 * (a policy `condition` of a few levels), far below what the recursive request hash and
 * PostgreSQL's jsonb can take (`[` x100,000 overflowed the stack: a 500).
 */
export const MAX_JSON_DEPTH = 64;
