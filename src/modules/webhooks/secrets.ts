import { randomBytes } from 'node:crypto';

/**
 * A new signing secret: `whsec_` + base64 of 32 CSPRNG bytes, the Standard Webhooks convention, so
 * their verifiers take it as it is. Stored only sealed by the key ring (src/core/key-ring.ts).
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
