import type { RateTier } from '../core/context.js';

/** Requests per rolling 60-second window, by key tier (SPEC.md section 8). */
export const RATE_LIMIT_TIERS: Record<RateTier, number> = { standard: 60, premium: 300, unlimited: 10_000 };
export const RATE_LIMIT_WINDOW_SECONDS = 60;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
export const IDEMPOTENCY_RETENTION_HOURS = 24;
