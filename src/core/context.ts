import type { AppEnv } from '../config.js';
import { StringEnum } from './schema.js';
import type { Scope } from './scopes.js';

export const RATE_TIERS = ['standard', 'premium', 'unlimited'] as const;
export type RateTier = (typeof RATE_TIERS)[number];

export const EnvironmentSchema = StringEnum(['production', 'sandbox'], {
  description: 'A deployment serves one environment; keys are environment-specific.',
});

/** Who is calling: passed first to every service function. */
export interface RequestContext {
  tenantId: string;
  environment: AppEnv;
  keyId: string;
  /** Effective (expanded) scopes. */
  scopes: Scope[];
  rateTier: RateTier;
  requestId: string;
}
