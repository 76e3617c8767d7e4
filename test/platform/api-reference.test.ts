import { existsSync, mkdirSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(`SKIPPED: the API reference browser test needs ${CHROMIUM} (apt-get install -y chromium)`);
}

describe('API reference at /docs', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.app.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers });
  const assetsOf = (html: string) =>
    [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '').filter((s) => s !== 'data:,');

  it('is an HTML page whose renderer files are served locally, without a key', async () => {
    const page = await get('/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const assets = assetsOf(page.body);
    expect(assets.length).toBe(2);
    expect(assets.filter((s) => !s.startsWith('/docs/assets/'))).toEqual([]);
    for (const asset of assets) {
      const res = await get(asset);
      expect(res.statusCode, asset).toBe(200);
      expect(res.headers['content-type'], asset).toBe('application/javascript; charset=utf-8');
    }
    expect((await get(assets[0] ?? '')).body).toContain('@scalar/api-reference');
    const missing = await get('/docs/assets/package.json');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'not_found' });
    const doc = (await get('/api/v1/openapi.json')).json();
    expect(JSON.stringify(doc.paths)).not.toContain('/docs');
  });

  it('caches: hashed files immutable for a year, the page revalidated by its ETag (304)', async () => {
    const page = await get('/docs');
    expect(page.headers['cache-control']).toBe('no-cache');
    const etag = String(page.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await get('/docs', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    for (const asset of assetsOf(page.body)) {
      expect(asset).toMatch(/^\/docs\/assets\/\w+\.[0-9A-Za-z_-]{12}\.js$/);
      const res = await get(asset);
      expect(res.headers['cache-control'], asset).toBe('public, max-age=31536000, immutable');
      const cached = await get(asset, { 'if-none-match': String(res.headers.etag) });
      expect(cached.statusCode, asset).toBe(304);
    }
  });

  it('serves the page and its files compressed (brotli, gzip), decoding to the same bytes', async () => {
    const page = await get('/docs');
    const bundle = assetsOf(page.body)[0] ?? '';
    const plain = await get(bundle);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const br = await get(bundle, { 'accept-encoding': 'gzip, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    expect(brotliDecompressSync(br.rawPayload).equals(plain.rawPayload)).toBe(true);
    const gzip = await get(bundle, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).equals(plain.rawPayload)).toBe(true);
    const html = await get('/docs', { 'accept-encoding': 'gzip' });
    expect(gunzipSync(html.rawPayload).toString()).toBe(page.body);
  });

  it('is outside the rate limit: 100 page loads in a minute are all answered', async () => {
    const page = await get('/docs');
    const urls = ['/docs', ...assetsOf(page.body)];
    const statuses = new Set<number>();
    for (let load = 0; load < 100; load++) {
      // As a browser without a cache loads it.
      for (const url of urls)
        statuses.add((await get(url, { 'accept-encoding': 'gzip, deflate, br' })).statusCode);
    }
    expect([...statuses]).toEqual([200]);
    // An API call from the same client is still limited, and still has its whole minute.
    const limited = await get('/api/v1/openapi.json');
    expect(limited.statusCode).toBe(200);
    expect(limited.headers['x-ratelimit-remaining']).toBeDefined();
    expect(
      Number(limited.headers['x-ratelimit-limit']) - Number(limited.headers['x-ratelimit-remaining']),
    ).toBeLessThan(10);
  });
});

describe.skipIf(!hasChromium)('API reference in headless Chromium', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps, { name: 'Reference page shop' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    baseUrl = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => t.app.close());

  it('renders the groups in flow order, opens an operation and sends it with try-it (screenshot in docs/artifacts/api-reference.png)', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
      const outside: string[] = [];
      page.on('request', (req) => {
        if (!req.url().startsWith(baseUrl) && !req.url().startsWith('data:')) outside.push(req.url());
      });
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      await page.goto(`${baseUrl}/docs`);
      await page.locator('.show-api-client-button').first().waitFor({ timeout: 60_000 });
      expect(await page.title()).toContain('Commerce Agent API');
      // The sidebar: the introduction (getting started), then the groups in flow order, admin last.
      const sidebar = (await page.locator('nav, aside').first().innerText()).split('\n').map((l) => l.trim());
      const order = [
        'Introduction',
        'Start here',
        'Discovery',
        'Buy',
        'Catalog',
        'Accounts',
        'Carts',
        'Orders',
      ];
      const positions = [
        ...order,
        'Payments',
        'Integrate',
        'Administration',
        'API keys',
        'Catalog admin',
      ].map((label) => sidebar.indexOf(label));
      expect(
        positions.every((p) => p >= 0),
        JSON.stringify(sidebar),
      ).toBe(true);
      expect(positions).toEqual([...positions].sort((x, y) => x - y));

      // Open getManifest, give try-it the tenant's key, send, and see the real answer.
      const operation = page.locator('section[id$="/GET/api/v1/manifest"]');
      await operation.scrollIntoViewIfNeeded();
      await operation.locator('.show-api-client-button').click();
      await page.getByPlaceholder('Token').first().fill(tenant.keys.read);
      await page.getByRole('button', { name: /^Send/ }).first().click();
      await page.getByText('200 OK').first().waitFor({ timeout: 30_000 });
      await page.getByText('"Reference page shop"').first().waitFor({ timeout: 30_000 });
      // Animations finished first (the answer's heading fades in). A CI artifact, not committed
      // (docs/artifacts/ is ignored): docs/api-reference.png is a copy of it.
      mkdirSync('docs/artifacts', { recursive: true });
      await page.screenshot({ path: 'docs/artifacts/api-reference.png', animations: 'disabled' });
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
