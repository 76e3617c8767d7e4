import { eq, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import { isoOrNull } from '../../core/format.js';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { tenants } from '../tenants/index.js';
import type { SellerProfileSchema, UpdateSellerProfileBody } from './schemas.js';
import { sellerProfiles } from './tables.js';

/** How the seller presents itself (the protocol bindings turn the URLs into their `links[]`). */
export interface SellerProfile {
  /** The name set with PATCH /seller, else the tenant's name. */
  displayName: string;
  supportEmail: string | null;
  supportUrl: string | null;
  termsOfUseUrl: string | null;
  privacyPolicyUrl: string | null;
  returnPolicyUrl: string | null;
}

export type SellerProfileApi = Static<typeof SellerProfileSchema>;
export type SellerProfileChanges = Static<typeof UpdateSellerProfileBody>;

/** The profile with when it was last set (null: never, every field is its default). */
export interface StoredSellerProfile {
  profile: SellerProfile;
  updatedAt: Date | null;
}

const p = sellerProfiles;

/**
 * The tenant's seller profile: its row over the defaults (the tenant's name, no links). One
 * statement: the tenant (a reference table) with its profile row if it has one.
 */
export async function readSellerProfile(db: Queryable, tenantId: string): Promise<StoredSellerProfile> {
  const [row] = await db
    .select({
      name: tenants.name,
      displayName: p.displayName,
      supportEmail: p.supportEmail,
      supportUrl: p.supportUrl,
      termsOfUseUrl: p.termsOfUseUrl,
      privacyPolicyUrl: p.privacyPolicyUrl,
      returnPolicyUrl: p.returnPolicyUrl,
      updatedAt: p.updatedAt,
    })
    .from(tenants)
    .leftJoin(p, sql`${p.tenantId} = ${tenants.id} and ${p.tenantId} = ${tenantId}::uuid`)
    .where(eq(tenants.id, tenantId));
  if (!row) throw new Error(`tenant ${tenantId} not found`);
  return {
    profile: {
      displayName: row.displayName ?? row.name,
      supportEmail: row.supportEmail,
      supportUrl: row.supportUrl,
      termsOfUseUrl: row.termsOfUseUrl,
      privacyPolicyUrl: row.privacyPolicyUrl,
      returnPolicyUrl: row.returnPolicyUrl,
    },
    updatedAt: row.updatedAt,
  };
}

/**
 * Where an order made by an agentic checkout can be looked at (ACP `permalink_url`, one place so
 * the checkout's response and the order webhooks agree): the order in this API, under
 * `publicBaseUrl`. There is no storefront page; reading it takes a key of the tenant.
 */
export function orderPermalinkUrl(publicBaseUrl: string, orderId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/api/v1/orders/${encodeURIComponent(orderId)}`;
}

/** The tenant's seller profile, defaults filled in (for the ACP and UCP bindings' `links[]`). */
export async function getSellerProfile(db: Queryable, tenantId: string): Promise<SellerProfile> {
  return (await readSellerProfile(db, tenantId)).profile;
}

export function presentSellerProfile(stored: StoredSellerProfile): SellerProfileApi {
  return { ...stored.profile, updatedAt: isoOrNull(stored.updatedAt) };
}

/**
 * In a transaction: the profile's row, created empty if the tenant has none yet, locked until the
 * transaction ends, so concurrent changes are applied (and audited) one after the other.
 */
export async function lockSellerProfile(tx: Queryable, tenantId: string, now: Date): Promise<void> {
  await tx.insert(p).values({ tenantId, createdAt: now, updatedAt: now }).onConflictDoNothing();
  await tx.select({ tenantId: p.tenantId }).from(p).where(tenantWhere(p, tenantId)).for('update');
}

/**
 * Writes the given fields over the stored ones (the row is created on the first change); a
 * field left out keeps its value, null clears it (`displayName`: back to the tenant's name).
 */
export async function upsertSellerProfile(
  db: Queryable,
  tenantId: string,
  changes: SellerProfileChanges,
  now: Date,
): Promise<void> {
  const set = {
    ...(changes.displayName !== undefined ? { displayName: changes.displayName } : {}),
    ...(changes.supportEmail !== undefined ? { supportEmail: changes.supportEmail } : {}),
    ...(changes.supportUrl !== undefined ? { supportUrl: changes.supportUrl } : {}),
    ...(changes.termsOfUseUrl !== undefined ? { termsOfUseUrl: changes.termsOfUseUrl } : {}),
    ...(changes.privacyPolicyUrl !== undefined ? { privacyPolicyUrl: changes.privacyPolicyUrl } : {}),
    ...(changes.returnPolicyUrl !== undefined ? { returnPolicyUrl: changes.returnPolicyUrl } : {}),
  };
  await db
    .insert(p)
    .values({ tenantId, ...set, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: [p.tenantId], set: { ...set, updatedAt: now } });
}
