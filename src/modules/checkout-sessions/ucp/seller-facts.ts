import type { Clock } from '../../../clock.js';
import type { KeyRing } from '../../../core/key-ring.js';
import type { Queryable } from '../../../db/client.js';

// TEMPORARY until the seller module lands on main: the names and shapes it exports
// (getSellerProfile, sellerSigningKeys), answering "nothing set". Replaced by its index then.

export interface SellerProfile {
  displayName: string;
  supportEmail: string | null;
  supportUrl: string | null;
  termsOfUseUrl: string | null;
  privacyPolicyUrl: string | null;
  returnPolicyUrl: string | null;
}

export interface SellerSigningKey {
  kid: string;
  publicJwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string; kid: string; use: 'sig'; alg: 'ES256' };
}

export async function getSellerProfile(_db: Queryable, _tenantId: string): Promise<SellerProfile> {
  return {
    displayName: 'Seller',
    supportEmail: null,
    supportUrl: null,
    termsOfUseUrl: null,
    privacyPolicyUrl: null,
    returnPolicyUrl: null,
  };
}

export async function sellerSigningKeys(
  _deps: { db: Queryable; keyRing: KeyRing; clock: Clock },
  _tenantId: string,
): Promise<SellerSigningKey[]> {
  return [];
}

// TEMPORARY until the webhooks module's platform deliveries land on main (the same signature).
export interface PlatformDelivery {
  url: string;
  eventType: string;
  body: unknown;
  signing: 'ucp';
  agentProfileUrl: string;
}

export async function enqueuePlatformDelivery(
  _u: import('../../../unit-of-work/index.js').UnitOfWork,
  _delivery: PlatformDelivery,
): Promise<{ id: string; targetId: string }> {
  return { id: '', targetId: '' };
}
