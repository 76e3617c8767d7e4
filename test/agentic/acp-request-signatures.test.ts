import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { checkoutSessions } from '../../src/modules/checkout-sessions/tables.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import {
  type AcpCatalog,
  acpCatalog,
  acpClient,
  address,
  delegation,
  noInterventions,
} from './acp-client.js';
import { expectAcp } from './schemas/acp/index.js';

// ACP request signing (rfc.agentic_checkout.md: the client SHOULD sign, the server SHOULD verify
// within a bounded clock skew and publish what it accepts): a seller that registers platform
// keys (PATCH /seller `acpRequestKeys`) takes only requests signed by one of them, ECDSA over
// `<METHOD> <path>\n<Timestamp>\n<canonical JSON body>`; a seller without keys takes unsigned ones.

const clock = new ManualClock(new Date('2026-05-04T10:00:00Z'));
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let catalog: AcpCatalog;
let platformKey: KeyObject;

const ecPair = (namedCurve = 'P-256') => generateKeyPairSync('ec', { namedCurve });
const jwkOf = (key: KeyObject, kid: string) => ({ ...key.export({ format: 'jwk' }), kid });

beforeAll(async () => {
  t = await startApp({ clock });
  shop = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
  catalog = await acpCatalog(t, shop);
  const pair = ecPair();
  platformKey = pair.privateKey;
  const keys = [jwkOf(pair.publicKey, 'platform-a'), jwkOf(ecPair('P-384').publicKey, 'platform-b')];
  const res = await setKeys(shop, keys);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().data.acpRequestKeys.map((k: { kid: string }) => k.kid)).toEqual([
    'platform-a',
    'platform-b',
  ]);
});
afterAll(() => t.app.close());

const setKeys = (tenant: TestTenant, acpRequestKeys: unknown) =>
  t.app.inject({
    method: 'PATCH',
    url: '/api/v1/seller',
    headers: { ...bearer(tenant.keys.admin), 'idempotency-key': `keys-${Math.random()}` },
    payload: { acpRequestKeys },
  });

/** The Signature a platform sends: base64url ECDSA (raw r||s) over the signing input. */
function sign(method: string, path: string, timestamp: string, body: unknown, key = platformKey) {
  const input = `${method} /api/v1${path}\n${timestamp}\n${body === undefined ? '' : canonicalize(body)}`;
  return createSign('sha256').update(input).sign({ key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
}

interface Signing {
  at?: Date;
  key?: KeyObject;
  /** What was signed, when the body sent is another. */
  signedBody?: unknown;
  omit?: 'signature' | 'timestamp';
}

function signedCall(
  tenant: TestTenant,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  s: Signing = {},
) {
  const timestamp = (s.at ?? clock.now()).toISOString();
  const signature = sign(method, path, timestamp, s.signedBody ?? body, s.key);
  const headers = {
    ...(s.omit === 'signature' ? {} : { signature }),
    ...(s.omit === 'timestamp' ? {} : { timestamp }),
  };
  return acpClient(t, tenant.keys.commerce).send(method, path, body, { headers });
}

const createBody = () => ({
  currency: 'usd',
  line_items: [{ id: catalog.mug.id, quantity: 1 }],
  capabilities: noInterventions,
  fulfillment_details: { name: 'Jane Doe', email: 'jane@example.com', address },
});

function refused(res: Awaited<ReturnType<typeof signedCall>>, code: string) {
  expect(res.statusCode, res.body).toBe(401);
  expectAcp('Error', res.json());
  expect(res.json()).toMatchObject({ type: 'invalid_request', code });
}

const sessionCount = async (tenant: TestTenant) =>
  (await t.deps.db.select().from(checkoutSessions).where(eq(checkoutSessions.tenantId, tenant.tenantId)))
    .length;

describe('ACP requests signed by a registered platform key', () => {
  it('a signed create, read, delegation and completion go through', async () => {
    const created = await signedCall(shop, 'POST', '/checkout_sessions', createBody());
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    expect((await signedCall(shop, 'GET', `/checkout_sessions/${id}`)).statusCode).toBe(200);
    const total = created.json().totals.find((x: { type: string }) => x.type === 'total').amount;
    const token = await signedCall(
      shop,
      'POST',
      '/agentic_commerce/delegate_payment',
      delegation(id, shop.tenantId, total, clock),
    );
    expect(token.statusCode, token.body).toBe(201);
    const done = await signedCall(shop, 'POST', `/checkout_sessions/${id}/complete`, {
      payment_data: {
        handler_id: 'acp_delegated_card',
        instrument: { type: 'card', credential: { type: 'spt', token: token.json().id } },
        billing_address: address,
      },
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().status).toBe('completed');
  });

  it('refuses unsigned, tampered, stale, future and foreign-key requests, creating nothing', async () => {
    const before = await sessionCount(shop);
    const body = createBody();
    refused(await acpClient(t, shop.keys.commerce).create(body), 'signature_missing');
    refused(
      await signedCall(shop, 'POST', '/checkout_sessions', body, { omit: 'timestamp' }),
      'signature_missing',
    );
    refused(
      await signedCall(shop, 'POST', '/checkout_sessions', body, { omit: 'signature' }),
      'signature_missing',
    );
    const tampered = { ...body, line_items: [{ id: catalog.mug.id, quantity: 40 }] };
    refused(
      await signedCall(shop, 'POST', '/checkout_sessions', tampered, { signedBody: body }),
      'signature_invalid',
    );
    const minutes = (m: number) => new Date(clock.now().getTime() + m * 60_000);
    refused(
      await signedCall(shop, 'POST', '/checkout_sessions', body, { at: minutes(-6) }),
      'signature_invalid',
    );
    refused(
      await signedCall(shop, 'POST', '/checkout_sessions', body, { at: minutes(6) }),
      'signature_invalid',
    );
    refused(
      await signedCall(shop, 'POST', '/checkout_sessions', body, { key: ecPair().privateKey }),
      'signature_invalid',
    );
    // A signature made for another path does not carry over.
    const timestamp = clock.now().toISOString();
    const elsewhere = await acpClient(t, shop.keys.commerce).create(body, {
      headers: { timestamp, signature: sign('POST', '/checkout_sessions/x', timestamp, body) },
    });
    refused(elsewhere, 'signature_invalid');
    expect(await sessionCount(shop)).toBe(before);
    // Within the skew it is served.
    expect((await signedCall(shop, 'POST', '/checkout_sessions', body, { at: minutes(-4) })).statusCode).toBe(
      201,
    );
  });

  it('a seller without keys takes unsigned requests; clearing the keys lifts the requirement', async () => {
    const otherCatalog = await acpCatalog(t, other);
    const body = { ...createBody(), line_items: [{ id: otherCatalog.mug.id, quantity: 1 }] };
    expect((await acpClient(t, other.keys.commerce).create(body)).statusCode).toBe(201);
    const cleared = await setKeys(shop, []);
    expect(cleared.json().data.acpRequestKeys).toEqual([]);
    expect((await acpClient(t, shop.keys.commerce).create(createBody())).statusCode).toBe(201);
    await setKeys(shop, [jwkOf(ecPair().publicKey, 'again')]);
  });

  it('PATCH /seller refuses a key off its curve, a private key, a repeated kid, or more than five', async () => {
    const good = jwkOf(ecPair().publicKey, 'k1');
    const offCurve = { ...good, kid: 'k2', y: good.x };
    const cases: [unknown, string][] = [
      [[good, offCurve], 'acpRequestKeys.1'],
      [[{ ...jwkOf(ecPair().privateKey, 'k3') }], 'acpRequestKeys.0.d'],
      [[good, good], 'acpRequestKeys.1'],
      [[1, 2, 3, 4, 5, 6].map((i) => ({ ...good, kid: `k${i}` })), 'acpRequestKeys'],
    ];
    for (const [keys, field] of cases) {
      const res = await setKeys(shop, keys);
      expect(res.statusCode, res.body).toBe(400);
      expect(errorBody(res).details?.[0]?.field).toBe(field);
    }
  });
});
