import { StringEnum } from './schema.js';

export const RATE_TIERS = ['standard', 'premium', 'unlimited'] as const;
export type RateTier = (typeof RATE_TIERS)[number];

export const EnvironmentSchema = StringEnum(['production', 'sandbox'], {
  description: 'A deployment serves one environment; keys are environment-specific.',
});

/**
 * Who acts in an operation: passed first to every operation and service, whoever runs it (a
 * request, the subscription scheduler, a provider event, the reconciler).
 */
export interface OperationContext {
  tenantId: string;
  /**
   * The API key acting: audit entries name it, subscription events carry it as `userId`. Null when
   * the system acts (the scheduler, a payment provider's event, the reconciler).
   */
  keyId: string | null;
  /** The console user acting through a session (then `keyId` is null); absent or null otherwise. */
  userId?: string | null;
  /** The request or system job the operation runs for: audit entries and events record it. */
  requestId: string;
}

/** The context of work the system does for a tenant, with no API key. */
export const systemContext = (tenantId: string, requestId: string): OperationContext => ({
  tenantId,
  keyId: null,
  requestId,
});
