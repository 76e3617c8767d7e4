import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { desc, eq, gt, or } from 'drizzle-orm';
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import type { Clock } from '../../clock.js';
import type { KeyRing } from '../../core/key-ring.js';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { sellerSigningKeys as keys } from './tables.js';

/** What reading (and lazily creating) a tenant's signing key needs: `ServiceDeps` has it all. */
export interface SigningKeyDeps {
  /** The pool, or the caller's transaction. */
  db: Queryable;
  keyRing: KeyRing;
  clock: Clock;
}

/** A public key as agent platforms find it in `signing_keys[]` (RFC 7517 JWK, UCP's fields). */
export interface SellerPublicJwk extends JsonWebKey {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid: string;
  use: 'sig';
  alg: 'ES256';
}

export interface SellerSigningKey {
  kid: string;
  publicJwk: SellerPublicJwk;
}

/** The active key, able to sign: its id and its private key. */
export interface ActiveSigningKey {
  kid: string;
  privateKey: KeyObject;
}

/**
 * How long a retired key is still published after a rotation: UCP asks verifiers to accept old
 * keys for at least 7 days (signatures.md, "Key Rotation"), and a delivery signed just before the
 * rotation may be retried for minutes after it.
 */
export const RETIRED_KEY_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

type Row = typeof keys.$inferSelect;

const publicJwkOf = (row: Row): SellerPublicJwk => ({
  ...(row.publicJwk as SellerPublicJwk),
  kid: row.kid,
  use: 'sig',
  alg: 'ES256',
});

/** A new EC P-256 key pair as a row: kid = the RFC 7638 thumbprint of its public JWK. */
async function newKeyRow(tenantId: string, ring: KeyRing, now: Date): Promise<typeof keys.$inferInsert> {
  const pair = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(pair.publicKey);
  const publicJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as JsonWebKey;
  return {
    tenantId,
    kid: await calculateJwkThumbprint(jwk, 'sha256'),
    publicJwk,
    privateKeyCiphertext: ring.seal('signing_key', await exportPKCS8(pair.privateKey)),
    status: 'active',
    createdAt: now,
    retiredAt: null,
  };
}

async function activeRow(db: Queryable, tenantId: string): Promise<Row | undefined> {
  const [row] = await db
    .select()
    .from(keys)
    .where(tenantWhere(keys, tenantId, eq(keys.status, 'active')));
  return row;
}

/**
 * The tenant's active key row, created on first use. Two first uses at once both insert; the
 * partial unique index keeps one, and the other reads it.
 */
async function ensureActive(deps: SigningKeyDeps, tenantId: string): Promise<Row> {
  const found = await activeRow(deps.db, tenantId);
  if (found) return found;
  await deps.db
    .insert(keys)
    .values(await newKeyRow(tenantId, deps.keyRing, deps.clock.now()))
    .onConflictDoNothing();
  const created = await activeRow(deps.db, tenantId);
  if (!created) throw new Error(`no active signing key for tenant ${tenantId} after creating one`);
  return created;
}

/**
 * The tenant's public signing keys, for the UCP profile's `signing_keys`: the active one (created
 * on first use) first, then those retired less than RETIRED_KEY_GRACE_MS ago.
 */
export async function sellerSigningKeys(deps: SigningKeyDeps, tenantId: string): Promise<SellerSigningKey[]> {
  await ensureActive(deps, tenantId);
  const since = new Date(deps.clock.now().getTime() - RETIRED_KEY_GRACE_MS);
  const rows = await deps.db
    .select()
    .from(keys)
    .where(tenantWhere(keys, tenantId, or(eq(keys.status, 'active'), gt(keys.retiredAt, since))))
    .orderBy(keys.status, desc(keys.createdAt));
  return rows.map((row) => ({ kid: row.kid, publicJwk: publicJwkOf(row) }));
}

/** The tenant's active key with its private key opened (created on first use). */
export async function activeSigningKey(deps: SigningKeyDeps, tenantId: string): Promise<ActiveSigningKey> {
  const row = await ensureActive(deps, tenantId);
  const pem = deps.keyRing.open('signing_key', row.privateKeyCiphertext);
  return { kid: row.kid, privateKey: createPrivateKey(pem) };
}

/**
 * Retires the active key and makes a new one active; the retired key stays published for
 * RETIRED_KEY_GRACE_MS. Run in a transaction (the caller's), so no moment has no active key.
 */
export async function rotateSellerSigningKey(
  deps: SigningKeyDeps,
  tenantId: string,
): Promise<{ kid: string; retiredKid: string | null }> {
  const now = deps.clock.now();
  const [retired] = await deps.db
    .update(keys)
    .set({ status: 'retired', retiredAt: now })
    .where(tenantWhere(keys, tenantId, eq(keys.status, 'active')))
    .returning({ kid: keys.kid });
  const row = await newKeyRow(tenantId, deps.keyRing, now);
  await deps.db.insert(keys).values(row);
  return { kid: row.kid, retiredKid: retired?.kid ?? null };
}
