import { createPublicKey, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { createVerifier, httpbis } from 'http-message-signatures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { KeyRing } from '../../src/core/key-ring.js';
import type { Database } from '../../src/db/client.js';
import { resealSecrets } from '../../src/db/sealing.js';
import {
  contentDigest,
  RETIRED_KEY_GRACE_MS,
  rotateSellerSigningKey,
  sellerRequestSigner,
  sellerSigningKeys,
} from '../../src/modules/seller/index.js';
import { sellerSigningKeys as keysTable } from '../../src/modules/seller/tables.js';
import { TABLE_LAYOUT } from '../../src/schema.js';
import {
  createScratchDatabase,
  createTestTenant,
  ownPgliteDatabase,
  startApp,
  type TestApp,
  usingPostgres,
} from '../harness.js';

// The seller's signing key (UCP `signing_keys`): one EC P-256 pair per tenant, made on first use,
// the private key sealed at rest; rotated keys stay published for a grace period.

const clock = new ManualClock(new Date('2031-05-01T12:00:00Z'));
let t: TestApp;
let database: Database;
let dropDatabase: () => Promise<void>;

beforeAll(async () => {
  // A database of its own: the rotation test re-seals every row of the table, and on the shared
  // database other files write (and must still open) signing keys under the app's ring meanwhile.
  if (usingPostgres) {
    const scratch = await createScratchDatabase();
    database = scratch.database;
    dropDatabase = scratch.drop;
  } else {
    database = await ownPgliteDatabase();
    dropDatabase = () => database.close();
  }
  t = await startApp({ clock, database });
});
afterAll(async () => {
  await t.app.close();
  await dropDatabase();
});

const B64URL = /^[A-Za-z0-9_-]+$/;

describe('seller signing keys', () => {
  it('are made on first use, once, as a public EC P-256 JWK whose kid is its thumbprint', async () => {
    const tenant = await createTestTenant(t.deps);
    const [first, again] = await Promise.all([
      sellerSigningKeys(t.deps, tenant.tenantId),
      sellerSigningKeys(t.deps, tenant.tenantId),
    ]);
    expect(first).toHaveLength(1);
    expect(again).toEqual(first);
    const key = first[0];
    expect(key?.publicJwk).toEqual({
      kty: 'EC',
      crv: 'P-256',
      x: expect.stringMatching(B64URL),
      y: expect.stringMatching(B64URL),
      kid: key?.kid,
      use: 'sig',
      alg: 'ES256',
    });
    expect(key?.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Object.keys(key?.publicJwk ?? {})).not.toContain('d');
    // Another tenant has its own key.
    const other = await createTestTenant(t.deps);
    expect((await sellerSigningKeys(t.deps, other.tenantId))[0]?.kid).not.toBe(key?.kid);
  });

  it('keeps the private key only sealed by the key ring', async () => {
    const tenant = await createTestTenant(t.deps);
    await sellerSigningKeys(t.deps, tenant.tenantId);
    const [row] = await t.deps.db.select().from(keysTable).where(eq(keysTable.tenantId, tenant.tenantId));
    expect(row?.privateKeyCiphertext).toMatch(/^ek1\./);
    expect(row?.privateKeyCiphertext).not.toContain('PRIVATE KEY');
    expect(t.deps.keyRing.open('signing_key', row?.privateKeyCiphertext ?? '')).toContain(
      'BEGIN PRIVATE KEY',
    );
    expect(() => t.deps.keyRing.open('webhook_secret', row?.privateKeyCiphertext ?? '')).toThrow();
  });

  it('is re-sealed by a key-ring rotation (`encryption rotate`) and still signs under the new ring alone', async () => {
    const tenant = await createTestTenant(t.deps);
    const [key] = await sellerSigningKeys(t.deps, tenant.tenantId);
    const columns = TABLE_LAYOUT.sealed.filter((c) => c.table === 'seller_signing_keys');
    expect(columns.map((c) => [c.column, c.purpose])).toEqual([['private_key_ciphertext', 'signing_key']]);
    const fresh = new KeyRing([{ id: 'k9', key: randomBytes(32) }, ...t.deps.keyRing.keys], 'test');
    const report = await resealSecrets(t.deps.db, fresh, 'rotate', columns);
    expect(report[0]?.remaining).toBe(0);
    const onlyNew = { ...t.deps, keyRing: new KeyRing([fresh.keys[0] as (typeof fresh.keys)[0]], 'test') };
    expect((await sellerRequestSigner(onlyNew, tenant.tenantId)).kid).toBe(key?.kid);
    await resealSecrets(t.deps.db, t.deps.keyRing, 'rotate', columns); // back to the app's ring
  });

  it('rotates: the new key signs, the retired one stays published for the grace period', async () => {
    const tenant = await createTestTenant(t.deps);
    const [old] = await sellerSigningKeys(t.deps, tenant.tenantId);
    const rotated = await rotateSellerSigningKey(t.deps, tenant.tenantId);
    expect(rotated.retiredKid).toBe(old?.kid);
    expect((await sellerSigningKeys(t.deps, tenant.tenantId)).map((k) => k.kid)).toEqual([
      rotated.kid,
      old?.kid,
    ]);
    expect((await sellerRequestSigner(t.deps, tenant.tenantId)).kid).toBe(rotated.kid);
    clock.advance(RETIRED_KEY_GRACE_MS + 1_000);
    expect((await sellerSigningKeys(t.deps, tenant.tenantId)).map((k) => k.kid)).toEqual([rotated.kid]);
  });

  it('signs a request per RFC 9421 (raw r||s ECDSA) that the library verifies with the public JWK', async () => {
    const tenant = await createTestTenant(t.deps);
    const signer = await sellerRequestSigner(t.deps, tenant.tenantId);
    const body = '{"id":"order_1","status":"confirmed"}';
    const request = {
      method: 'POST',
      url: 'https://platform.example/webhooks/ucp/orders?shop=1',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'evt_1' },
      body,
    };
    const headers = await signer.sign(request, clock.now());
    expect(headers['content-digest']).toBe(contentDigest(body));
    expect(headers['signature-input']).toBe(
      `sig1=("@method" "@authority" "@path" "@query" "idempotency-key" "content-digest" "content-type");created=${Math.floor(clock.now().getTime() / 1000)};keyid="${signer.kid}"`,
    );
    const [key] = await sellerSigningKeys(t.deps, tenant.tenantId);
    const publicKey = createPublicKey({ key: key?.publicJwk ?? {}, format: 'jwk' });
    const verified = await httpbis.verifyMessage(
      {
        keyLookup: async ({ keyid }) =>
          keyid === key?.kid ? { verify: createVerifier(publicKey, 'ecdsa-p256-sha256') } : null,
        notAfter: new Date(clock.now().getTime() + 1_000),
      },
      { method: 'POST', url: request.url, headers },
    );
    expect(verified).toBe(true);
    // 64 bytes: r||s, not DER.
    const signature = Buffer.from(/^sig1=:(.*):$/.exec(headers.signature ?? '')?.[1] ?? '', 'base64');
    expect(signature).toHaveLength(64);
    const tampered = { ...headers, 'idempotency-key': 'evt_2' };
    const refused = await httpbis.verifyMessage(
      {
        keyLookup: async () => ({ verify: createVerifier(publicKey, 'ecdsa-p256-sha256') }),
        notAfter: new Date(clock.now().getTime() + 1_000),
      },
      { method: 'POST', url: request.url, headers: tampered },
    );
    expect(refused).toBe(false);
  });
});
