import { sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import { isoOrNull } from '../../core/format.js';
import { type Queryable, rowsOf } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { SellerProfileSchema, UpdateSellerProfileBody } from './schemas.js';
import { type AcpRequestKey, sellerProfiles } from './tables.js';

/** How the seller presents itself (the protocol bindings turn the URLs into their `links[]`). */
export interface SellerProfile {
  /** The name set with PATCH /seller, else the tenant's name. */
  displayName: string;
  supportEmail: string | null;
  supportUrl: string | null;
  termsOfUseUrl: string | null;
  privacyPolicyUrl: string | null;
  returnPolicyUrl: string | null;
  /** Keys of the agent platforms that must sign ACP requests (none: ACP requests are not signed). */
  acpRequestKeys: AcpRequestKey[];
}

export type SellerProfileApi = Static<typeof SellerProfileSchema>;
export type SellerProfileChanges = Static<typeof UpdateSellerProfileBody>;

/** The profile with when it was last set (null: never, every field is its default). */
export interface StoredSellerProfile {
  profile: SellerProfile;
  updatedAt: Date | null;
}

const p = sellerProfiles;

interface ProfileRow {
  name: string;
  display_name: string | null;
  support_email: string | null;
  support_url: string | null;
  terms_of_use_url: string | null;
  privacy_policy_url: string | null;
  return_policy_url: string | null;
  acp_request_keys: AcpRequestKey[] | string | null;
  updated_at: string | Date | null;
}

/**
 * The tenant's seller profile: its row over the defaults (the tenant's name, no links). One
 * statement: the tenant (a reference table) with its profile row if it has one.
 */
export async function readSellerProfile(db: Queryable, tenantId: string): Promise<StoredSellerProfile> {
  // Plain text, not the query builder: every agentic checkout answer reads it (its links).
  const [row] = rowsOf<ProfileRow>(
    await db.execute(sql`select t.name, p.display_name, p.support_email, p.support_url, p.terms_of_use_url,
        p.privacy_policy_url, p.return_policy_url, p.acp_request_keys, p.updated_at
      from tenants t left join seller_profiles p on p.tenant_id = t.id and p.tenant_id = ${tenantId}::uuid
      where t.id = ${tenantId}::uuid`),
  );
  if (!row) throw new Error(`tenant ${tenantId} not found`);
  return {
    profile: {
      displayName: row.display_name ?? row.name,
      supportEmail: row.support_email,
      supportUrl: row.support_url,
      termsOfUseUrl: row.terms_of_use_url,
      privacyPolicyUrl: row.privacy_policy_url,
      returnPolicyUrl: row.return_policy_url,
      acpRequestKeys:
        typeof row.acp_request_keys === 'string'
          ? JSON.parse(row.acp_request_keys)
          : (row.acp_request_keys ?? []),
    },
    updatedAt: row.updated_at === null ? null : new Date(row.updated_at),
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
    ...(changes.acpRequestKeys !== undefined
      ? { acpRequestKeys: changes.acpRequestKeys as AcpRequestKey[] }
      : {}),
  };
  await db
    .insert(p)
    .values({ tenantId, ...set, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: [p.tenantId], set: { ...set, updatedAt: now } });
}
