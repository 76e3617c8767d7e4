import { desc, eq, isNull } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { AppEnv } from '../../config.js';
import type { RateTier } from '../../core/context.js';
import type { Scope } from '../../core/scopes.js';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { displayPrefix, generateKey, hashKey } from './key-material.js';
import { apiKeys } from './tables.js';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export interface ApiKey {
  id: string;
  tenantId: string;
  name: string;
  environment: AppEnv;
  scopes: Scope[];
  rateTier: RateTier;
  keyPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface NewApiKey {
  name: string;
  scopes: Scope[];
  rateTier: RateTier;
  environment: AppEnv;
}

export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    environment: row.environment as AppEnv,
    scopes: row.scopes as Scope[],
    rateTier: row.rateTier as RateTier,
    keyPrefix: row.keyPrefix,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  };
}

/** Creates a key and returns it with the plaintext secret, which is never retrievable again. */
export async function issueApiKey(
  db: Queryable,
  tenantId: string,
  input: NewApiKey,
): Promise<{ apiKey: ApiKey; secret: string }> {
  const secret = generateKey(input.environment);
  const [row] = await db
    .insert(apiKeys)
    .values({
      tenantId,
      id: uuidv7(),
      name: input.name,
      environment: input.environment,
      scopes: [...new Set(input.scopes)],
      rateTier: input.rateTier,
      keyPrefix: displayPrefix(secret),
      keyHash: hashKey(secret),
    })
    .returning();
  if (!row) throw new Error('api key insert returned no row');
  return { apiKey: toApiKey(row), secret };
}

export async function listApiKeys(db: Queryable, tenantId: string): Promise<ApiKey[]> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(tenantWhere(apiKeys, tenantId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return rows.map(toApiKey);
}

export async function getApiKey(db: Queryable, tenantId: string, id: string): Promise<ApiKey | undefined> {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(tenantWhere(apiKeys, tenantId, eq(apiKeys.id, id)));
  return row && toApiKey(row);
}

/** Marks the key revoked; revoking an already revoked key keeps its first revocation time. */
export async function revokeApiKey(
  db: Queryable,
  tenantId: string,
  id: string,
  at: Date,
): Promise<ApiKey | undefined> {
  await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(tenantWhere(apiKeys, tenantId, eq(apiKeys.id, id), isNull(apiKeys.revokedAt)));
  return getApiKey(db, tenantId, id);
}

/** Authentication lookup: by hash across tenants (the key is what names the tenant). */
export async function findKeyByHash(db: Queryable, keyHash: string): Promise<ApiKey | undefined> {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash));
  return row && toApiKey(row);
}

export async function touchLastUsed(db: Queryable, tenantId: string, id: string, at: Date): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: at })
    .where(tenantWhere(apiKeys, tenantId, eq(apiKeys.id, id)));
}
