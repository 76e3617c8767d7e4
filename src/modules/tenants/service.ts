import { eq } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../db/client.js';
import { tenants } from './tables.js';

/** A BCP 47 language tag as content and settings take it: `en`, `fr-CA`, `zh-Hant-TW`, `es-419`. */
export const LOCALE_PATTERN = '^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$';

export interface Tenant {
  id: string;
  name: string;
  /** Opt-in platform usage metering of orders created from carts. */
  usageMetering: boolean;
  /** Apply an account's credit to each invoice issued for it. */
  autoApplyCredits: boolean;
  /** The locale product content falls back to. */
  defaultLocale: string;
  /** Webhooks may target loopback `http://` URLs (honoured in the sandbox environment only). */
  allowLoopbackWebhooks: boolean;
  createdAt: Date;
}

/** The settings PATCH /admin/settings changes. */
export interface TenantSettingsPatch {
  name?: string;
  usageMetering?: boolean;
  autoApplyCredits?: boolean;
  defaultLocale?: string;
  allowLoopbackWebhooks?: boolean;
}

export async function createTenant(db: Queryable, name: string): Promise<Tenant> {
  const [row] = await db.insert(tenants).values({ id: uuidv7(), name }).returning();
  if (!row) throw new Error('tenant insert returned no row');
  return row;
}

export async function getTenant(db: Queryable, id: string): Promise<Tenant | undefined> {
  const [row] = await db.select().from(tenants).where(eq(tenants.id, id));
  return row;
}

export async function listTenants(db: Queryable): Promise<Tenant[]> {
  return db.select().from(tenants).orderBy(tenants.createdAt);
}

export async function hasAnyTenant(db: Queryable): Promise<boolean> {
  const rows = await db.select({ id: tenants.id }).from(tenants).limit(1);
  return rows.length > 0;
}

export async function updateTenantSettings(
  db: Queryable,
  id: string,
  patch: TenantSettingsPatch,
): Promise<Tenant | undefined> {
  const [row] = await db.update(tenants).set(patch).where(eq(tenants.id, id)).returning();
  return row;
}
