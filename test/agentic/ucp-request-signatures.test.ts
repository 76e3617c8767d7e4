import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { createSigner, httpbis } from 'http-message-signatures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { checkoutSessions } from '../../src/modules/checkout-sessions/tables.js';
import { contentDigest } from '../../src/modules/seller/index.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { platformProfile, startPlatform, ucpAgent } from './schemas/ucp/platform.js';
import { stockShop } from './schemas/ucp/shop.js';
import { assertUcp } from './schemas/ucp/validator.js';

// A platform that signs its requests (signatures.md, "REST Request Verification"): RFC 9421 with
// a key from its profile's signing_keys, covering method, authority, path, the UCP-Agent and
// Idempotency-Key headers and (with a body) Content-Digest. A signed request is verified before
// anything is done; an unsigned one is authenticated by the API key alone, as before.

const clock = new ManualClock(new Date('2031-05-01T10:00:00.000Z'));
const KID = 'platform-2031';
let t: TestApp;
let shop: TestTenant;
let stock: Awaited<ReturnType<typeof stockShop>>;
let platform: Awaited<ReturnType<typeof startPlatform>>;
let profileUrl: string;
let privateKey: KeyObject;

const ecKey = (namedCurve: string) => generateKeyPairSync('ec', { namedCurve });

beforeAll(async () => {
  t = await startApp({ clock });
  shop = await createTestTenant(t.deps);
  stock = await stockShop(t, shop);
  platform = await startPlatform();
  const pair = ecKey('P-256');
  privateKey = pair.privateKey;
  const p384 = ecKey('P-384');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = (k: KeyObject, kid: string) => ({ ...k.export({ format: 'jwk' }), kid });
  profileUrl = platform.serve('/signed', {
    body: {
      ...platformProfile(),
      signing_keys: [jwk(pair.publicKey, KID), jwk(p384.publicKey, 'p384'), jwk(rsa.publicKey, 'rsa')],
    },
  });
});
afterAll(async () => {
  await t.app.close();
  await platform.close();
});

interface Signing {
  /** The body signed (and sent, unless `sent` says otherwise). */
  body?: unknown;
  sent?: unknown;
  kid?: string;
  key?: KeyObject;
  alg?: string;
  fields?: string[];
  /** Headers to drop after signing. */
  drop?: string[];
  /** Headers set after signing (a forger's changes). */
  after?: Record<string, string>;
  created?: Date;
}

/** A request signed as a UCP platform signs it, sent to our UCP REST endpoint. */
async function signed(method: 'GET' | 'POST', path: string, s: Signing = {}) {
  const text = s.body === undefined ? '' : JSON.stringify(s.body);
  const headers: Record<string, string> = {
    ...ucpAgent(profileUrl),
    ...(method === 'POST' ? { 'idempotency-key': `sig-${Math.random()}` } : {}),
    ...(text ? { 'content-type': 'application/json', 'content-digest': contentDigest(text) } : {}),
  };
  const fields = s.fields ?? [
    '@method',
    '@authority',
    '@path',
    'ucp-agent',
    ...(method === 'POST' ? ['idempotency-key'] : []),
    ...(text ? ['content-digest', 'content-type'] : []),
  ];
  const url = `http://localhost:80/ucp/v1${path}`;
  const signer = createSigner(s.key ?? privateKey, 'ecdsa-p256-sha256', s.kid ?? KID);
  const message = await httpbis.signMessage(
    {
      key: signer,
      name: 'sig1',
      fields,
      params: ['created', 'keyid', ...(s.alg ? ['alg'] : [])],
      paramValues: {
        created: s.created ?? clock.now(),
        keyid: s.kid ?? KID,
        ...(s.alg ? { alg: s.alg } : {}),
      },
    },
    { method, url, headers },
  );
  const sent = Object.fromEntries(
    Object.entries(message.headers as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
  );
  for (const name of s.drop ?? []) delete sent[name];
  Object.assign(sent, s.after);
  const payload = s.sent === undefined ? text : JSON.stringify(s.sent);
  return t.app.inject({
    method,
    url: `/ucp/v1${path}`,
    headers: { ...sent, authorization: `Bearer ${shop.keys.commerce}` },
    ...(payload ? { payload } : {}),
  });
}

const cart = () => ({ line_items: [{ item: { id: stock.tote }, quantity: 1 }] });

async function refused(res: Awaited<ReturnType<typeof signed>>, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  assertUcp('error', body);
  expect(body.messages[0]).toEqual(expect.objectContaining({ type: 'error', code }));
  return body.messages[0].content as string;
}

const sessionCount = async () =>
  (await t.deps.db.select().from(checkoutSessions).where(eq(checkoutSessions.tenantId, shop.tenantId)))
    .length;

describe('UCP requests signed by the platform (RFC 9421)', () => {
  it('a correctly signed create and read are served', async () => {
    const created = await signed('POST', '/checkout-sessions', { body: cart() });
    expect(created.statusCode, created.body).toBe(201);
    const read = await signed('GET', `/checkout-sessions/${created.json().id}`);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().id).toBe(created.json().id);
  });

  it('refusals create nothing: each names what is wrong', async () => {
    const before = await sessionCount();
    const other = { line_items: [{ item: { id: stock.tote }, quantity: 9 }] };
    // The body was changed after signing; its digest no longer matches.
    await refused(
      await signed('POST', '/checkout-sessions', { body: cart(), sent: other }),
      400,
      'digest_mismatch',
    );
    // The digest was recomputed for the changed body, but the signature covers the old one.
    const forged = await signed('POST', '/checkout-sessions', {
      body: cart(),
      sent: other,
      after: { 'content-digest': contentDigest(JSON.stringify(other)) },
    });
    await refused(forged, 401, 'signature_invalid');
    // A key the profile does not publish; another key under a published kid.
    expect(
      await refused(await signed('GET', '/checkout-sessions/x', { kid: 'nobody' }), 401, 'key_not_found'),
    ).toContain('kid=nobody');
    await refused(
      await signed('POST', '/checkout-sessions', { body: cart(), key: ecKey('P-256').privateKey }),
      401,
      'signature_invalid',
    );
    // One header without the other; a signature that leaves the body's digest out.
    await refused(
      await signed('POST', '/checkout-sessions', { body: cart(), drop: ['signature'] }),
      401,
      'signature_missing',
    );
    const uncovered = await signed('POST', '/checkout-sessions', {
      body: cart(),
      fields: ['@method', '@authority', '@path'],
    });
    expect(await refused(uncovered, 401, 'signature_invalid')).toContain('content-digest');
    // Algorithms other than ES256 and ES384: an RSA key, or an alg its key does not have.
    await refused(await signed('GET', '/checkout-sessions/x', { kid: 'rsa' }), 400, 'algorithm_unsupported');
    await refused(
      await signed('GET', '/checkout-sessions/x', { alg: 'ecdsa-p384-sha384' }),
      400,
      'algorithm_unsupported',
    );
    expect(await sessionCount()).toBe(before);
  });

  it('a signature created later than now (beyond a minute of skew) is refused; within it, served', async () => {
    const at = (ms: number) => new Date(clock.now().getTime() + ms);
    const late = await signed('GET', '/checkout-sessions/x', { created: at(5 * 60_000) });
    expect(await refused(late, 401, 'signature_invalid')).toContain('too old');
    const skewed = await signed('POST', '/checkout-sessions', { body: cart(), created: at(30_000) });
    expect(skewed.statusCode, skewed.body).toBe(201);
  });
});
