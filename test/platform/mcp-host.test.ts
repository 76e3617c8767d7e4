import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';

// DNS-rebinding protection: /mcp answers only requests naming this server in Host (a loopback
// name, or the public base URL's host with its port), beside the Origin check.

let t: TestApp;
let tenant: TestTenant;
let port: number;

beforeAll(async () => {
  t = await startApp();
  tenant = await createTestTenant(t.deps);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  port = address.port;
});
afterAll(() => t.app.close());

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

/** A tools/list over TCP with the given Host header (fetch cannot set Host). */
function listWithHost(host: string, extra: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          host,
          ...bearer(tenant.keys.read),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...extra,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(LIST);
  });
}

describe('/mcp Host validation', () => {
  it('serves the loopback names (a loopback proxy forwards its own port) and the public base URL host', async () => {
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port + 1}`,
      'localhost',
    ]) {
      const res = await listWithHost(host);
      expect(res.status, `${host} ${res.body}`).toBe(200);
    }
    const publicHost = new URL(t.deps.config.publicBaseUrl).host;
    expect((await listWithHost(publicHost)).status).toBe(200);
  });

  it('refuses any other name (a re-pointed one keeps its own name) with 403 naming the header', async () => {
    const publicUrl = new URL(t.deps.config.publicBaseUrl);
    const names = [
      'evil.example',
      `evil.example:${port}`,
      'localhost.evil.example',
      '127.0.0.1.evil.example',
    ];
    // The public host is served with its own port only (unless it is a loopback name).
    if (!['localhost', '127.0.0.1', '[::1]'].includes(publicUrl.hostname))
      names.push(`${publicUrl.hostname}:${Number(publicUrl.port || 80) + 1}`);
    for (const host of names) {
      const res = await listWithHost(host);
      expect(res.status, host).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
      expect(JSON.parse(res.body).error.message).toContain('Host');
    }
  });

  it('checks Origin too: a page of another site is 403 even with a good Host', async () => {
    const res = await listWithHost(`localhost:${port}`, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect((await listWithHost(`localhost:${port}`, { origin: `http://localhost:${port}` })).status).toBe(
      200,
    );
  });
});
