import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { platformProfile, startPlatform, ucpAgent } from './schemas/ucp/platform.js';
import { assertUcp } from './schemas/ucp/validator.js';

// Negotiation (overview.md, "Negotiation Protocol" and "Error Handling"): the platform profile
// named in UCP-Agent is fetched, cached by URL for its Cache-Control max-age (60 s to 1 h), and
// intersected with ours; each way it can fail has its code and status, in UCP's error response.

const clock = new ManualClock(new Date('2031-05-01T10:00:00.000Z'));
let t: TestApp;
let shop: TestTenant;
let platform: Awaited<ReturnType<typeof startPlatform>>;

beforeAll(async () => {
  t = await startApp({ clock });
  shop = await createTestTenant(t.deps);
  platform = await startPlatform();
});
afterAll(async () => {
  await t.app.close();
  await platform.close();
});

const SESSION = '0190b000-0000-7000-8000-00000000beef';

/** A checkout read as a platform sends it (any operation negotiates first). */
const getCheckout = (headers: Record<string, string>) =>
  t.app.inject({
    method: 'GET',
    url: `/ucp/v1/checkout-sessions/${SESSION}`,
    headers: { authorization: `Bearer ${shop.keys.read}`, ...headers },
  });

async function refusal(headers: Record<string, string>, status: number, code: string) {
  const res = await getCheckout(headers);
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  assertUcp('error', body);
  expect(body.messages[0]).toEqual(expect.objectContaining({ type: 'error', code }));
  return body;
}

describe('UCP-Agent and the profile URL', () => {
  it('no UCP-Agent header: 400 invalid_profile_url', async () => {
    await refusal({}, 400, 'invalid_profile_url');
  });

  it('a header that is not an RFC 8941 dictionary, or a profile that is not a string: 400', async () => {
    await refusal({ 'ucp-agent': 'profile="unterminated' }, 400, 'invalid_profile_url');
    await refusal({ 'ucp-agent': 'profile=https://platform.example/p' }, 400, 'invalid_profile_url');
    await refusal({ 'ucp-agent': 'agent="x"' }, 400, 'invalid_profile_url');
  });

  it('a URL that is not absolute, not https, or to a private address: 400', async () => {
    await refusal(ucpAgent('not a url'), 400, 'invalid_profile_url');
    await refusal(ucpAgent('ftp://platform.example/profile'), 400, 'invalid_profile_url');
    await refusal(ucpAgent('http://platform.example/profile'), 400, 'invalid_profile_url');
    const body = await refusal(ucpAgent('https://10.1.2.3/profile'), 400, 'invalid_profile_url');
    expect(body.messages[0].content).toContain('public address');
  });
});

describe('fetching the profile', () => {
  it('unreachable (an error status, or nothing listening): 424 profile_unreachable', async () => {
    const broken = platform.serve('/broken', { status: 500, body: {} });
    await refusal(ucpAgent(broken), 424, 'profile_unreachable');
    await refusal(ucpAgent('http://127.0.0.1:1/.well-known/ucp'), 424, 'profile_unreachable');
  });

  it('a redirect is not followed: 424', async () => {
    const moved = platform.serve('/moved', { status: 301, body: {} });
    await refusal(ucpAgent(moved), 424, 'profile_unreachable');
  });

  it('not JSON, or not a UCP profile: 422 profile_malformed', async () => {
    await refusal(
      ucpAgent(platform.serve('/text', { raw: '<html>hi</html>', body: null })),
      422,
      'profile_malformed',
    );
    await refusal(
      ucpAgent(platform.serve('/empty', { body: { name: 'platform' } })),
      422,
      'profile_malformed',
    );
    const badVersion = { ucp: { version: 'draft', capabilities: {} } };
    await refusal(ucpAgent(platform.serve('/draft', { body: badVersion })), 422, 'profile_malformed');
  });

  it('a profile larger than 256 KiB: 422 profile_malformed', async () => {
    const huge = { ...platformProfile(), padding: 'x'.repeat(300 * 1024) };
    await refusal(ucpAgent(platform.serve('/huge', { body: huge })), 422, 'profile_malformed');
  });

  it('another protocol version: 422 version_unsupported', async () => {
    const old = platform.serve('/old', { body: platformProfile({ version: '2026-01-23' }) });
    const body = await refusal(ucpAgent(old), 422, 'version_unsupported');
    expect(body.messages[0].content).toContain('2026-04-08');
  });

  it('the platform’s own profile is valid against UCP’s platform profile schema', () => {
    assertUcp('platformProfile', platformProfile());
  });
});

describe('the intersection', () => {
  it('without checkout in common: 200, ucp.status error, capabilities_incompatible, nothing done', async () => {
    const orderOnly = platform.serve('/order-only', { body: platformProfile({ capabilities: ['order'] }) });
    const res = await getCheckout(ucpAgent(orderOnly));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    assertUcp('error', body);
    expect(body.ucp).toEqual({ version: '2026-04-08', status: 'error', capabilities: {} });
    expect(body.messages[0].code).toBe('capabilities_incompatible');
  });

  it('extensions without their parent do not count: discount and fulfillment alone are incompatible', async () => {
    const orphans = platform.serve('/orphans', {
      body: platformProfile({ capabilities: ['discount', 'fulfillment'] }),
    });
    const res = await getCheckout(ucpAgent(orphans));
    expect(res.json().messages[0].code).toBe('capabilities_incompatible');
  });
});

describe('the profile cache', () => {
  it('keeps a profile for its max-age (at least 60 s), then fetches it again', async () => {
    const path = '/cached';
    const url = platform.serve(path, {
      body: platformProfile({ capabilities: ['order'] }),
      cacheControl: 'public, max-age=120',
    });
    await getCheckout(ucpAgent(url));
    await getCheckout(ucpAgent(url));
    expect(platform.hits(path)).toBe(1);
    clock.advance(119_000);
    await getCheckout(ucpAgent(url));
    expect(platform.hits(path)).toBe(1);
    clock.advance(2_000);
    await getCheckout(ucpAgent(url));
    expect(platform.hits(path)).toBe(2);
  });

  it('a max-age under 60 s is kept 60 s; no-store too', async () => {
    const path = '/short';
    const url = platform.serve(path, {
      body: platformProfile({ capabilities: ['order'] }),
      cacheControl: 'no-store, max-age=5',
    });
    await getCheckout(ucpAgent(url));
    clock.advance(30_000);
    await getCheckout(ucpAgent(url));
    expect(platform.hits(path)).toBe(1);
    clock.advance(31_000);
    await getCheckout(ucpAgent(url));
    expect(platform.hits(path)).toBe(2);
  });

  it('a profile that failed is not cached: fixed, it is used at once', async () => {
    const path = '/flaky';
    const url = platform.serve(path, { status: 503, body: {} });
    await refusal(ucpAgent(url), 424, 'profile_unreachable');
    platform.serve(path, { body: platformProfile({ capabilities: ['order'] }) });
    const res = await getCheckout(ucpAgent(url));
    expect(res.json().messages[0].code).toBe('capabilities_incompatible');
  });
});
