import { existsSync, mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../harness.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(`SKIPPED: the API reference browser test needs ${CHROMIUM} (apt-get install -y chromium)`);
}

describe('API reference at /docs', () => {
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    baseUrl = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => t.app.close());

  it('is an HTML page and its renderer files are served locally, without a key', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const scripts = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(scripts.filter((s) => /^https?:/.test(s))).toEqual([]);
    for (const asset of scripts.filter((s) => s.startsWith('/docs/assets/'))) {
      const res = await t.app.inject({ method: 'GET', url: asset });
      expect(res.statusCode, asset).toBe(200);
    }
    const missing = await t.app.inject({ method: 'GET', url: '/docs/assets/package.json' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'not_found' });
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(JSON.stringify(doc.paths)).not.toContain('/docs');
  });

  it.skipIf(!hasChromium)(
    'renders every operation in headless Chromium (screenshot in docs/api-reference.png)',
    async () => {
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--no-first-run',
        ],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
        const outside: string[] = [];
        page.on('request', (req) => {
          if (!req.url().startsWith(baseUrl)) outside.push(req.url());
        });
        const errors: string[] = [];
        page.on('pageerror', (err) => errors.push(err.message));
        await page.goto(`${baseUrl}/docs`);
        await page.waitForSelector('.opblock', { timeout: 30_000 });
        const operations = t.app.registry.publicOperations;
        const expected = operations.map((op) => `${op.method} ${op.url.replace(/:(\w+)/g, '{$1}')}`).sort();
        // A long document is rendered as it scrolls into view (blocks off screen leave the page):
        // every operation must render on the way down.
        const seen = new Set<string>();
        const height = Number(await page.evaluate('document.body.scrollHeight'));
        for (let y = 0; y <= height + 1600 && seen.size < expected.length; y += 800) {
          await page.evaluate(`window.scrollTo(0, ${y})`);
          await page.waitForTimeout(50);
          const blocks = await page.$$eval('.opblock', (all) =>
            all.map(
              (b) =>
                `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b
                  .querySelector('.opblock-summary-path')
                  ?.getAttribute('data-path')}`,
            ),
          );
          for (const block of blocks) seen.add(block);
        }
        expect([...seen].sort()).toEqual(expected);
        await page.evaluate('window.scrollTo(0, 0)');
        expect(await page.textContent('.info .title')).toContain('Commerce Agent API');
        expect(errors).toEqual([]);
        expect(outside).toEqual([]);
        // A CI artifact, not committed (docs/artifacts/ is ignored); docs/api-reference.png is a copy.
        mkdirSync('docs/artifacts', { recursive: true });
        await page.screenshot({ path: 'docs/artifacts/api-reference.png' });
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
