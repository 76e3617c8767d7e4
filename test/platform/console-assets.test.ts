import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerConsoleAssets } from '../../src/http/console-assets.js';
import { registerErrorHandling } from '../../src/http/error-handler.js';
import type { TypedApp } from '../../src/http/types.js';
import { createTestTenant, startApp, type TestApp } from '../harness.js';

// /console/: the built console's files, served by the API server (src/http/console-assets.ts).

const dir = mkdtempSync(join(tmpdir(), 'console-assets-'));
let app: TypedApp;

beforeAll(async () => {
  app = Fastify() as unknown as TypedApp;
  registerErrorHandling(app);
  registerConsoleAssets(app, dir);
  await app.ready();
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the console files', () => {
  it('answers 503 saying how to build it while it is not built', async () => {
    const res = await app.inject({ method: 'GET', url: '/console/' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'service_unavailable' });
    expect(res.json().error).toMatch(/npm run build/);
  });

  it('serves the page to revalidate and the hashed files as immutable, once built', async () => {
    mkdirSync(join(dir, 'assets'));
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><title>Console</title><script src="/console/assets/app-1a2b.js"></script>',
    );
    writeFileSync(join(dir, 'assets', 'app-1a2b.js'), 'console.log("console");'.repeat(100));
    for (const url of ['/console', '/console/', '/console/index.html']) {
      const page = await app.inject({ method: 'GET', url });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      expect(page.body).toContain('<title>Console</title>');
    }
    const script = await app.inject({
      method: 'GET',
      url: '/console/assets/app-1a2b.js',
      headers: { 'accept-encoding': 'br' },
    });
    expect(script.statusCode).toBe(200);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.headers['content-encoding']).toBe('br');
    const again = await app.inject({
      method: 'GET',
      url: '/console/assets/app-1a2b.js',
      headers: { 'if-none-match': String(script.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
  });

  it('answers 404 for a file it does not have, and never leaves the directory', async () => {
    expect((await app.inject({ method: 'GET', url: '/console/assets/nope.js' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/console/../package.json' })).statusCode).not.toBe(200);
    expect((await app.inject({ method: 'GET', url: '/console/%2e%2e/package.json' })).statusCode).toBe(404);
  });
});

describe('the console in the app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.app.close());

  it('is outside the rate limit and needs no key', async () => {
    const tenant = await createTestTenant(t.deps);
    const res = await t.app.inject({
      method: 'GET',
      url: '/console/',
      headers: { authorization: `Bearer ${tenant.keys.read}` },
    });
    // Built (200) or not (503): either way no key is asked for and no rate-limit headers are set.
    expect([200, 503]).toContain(res.statusCode);
    expect(res.headers['ratelimit-limit'] ?? res.headers['x-ratelimit-limit']).toBeUndefined();
  });
});
