import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSender, DeliveryWorker, loopbackSetting } from '../../src/modules/webhooks/index.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { waitFor } from '../support/wait.js';

// Loopback webhook targets for local development: a sandbox tenant opts in with its
// `allowLoopbackWebhooks` setting; production refuses it; refusals say how to develop locally;
// the delivery worker honours the setting as it is at each attempt.

interface Received {
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** A plain-http receiver on 127.0.0.1 answering 204, recording what it got. */
async function startLocalReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { received, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('loopback webhook targets', () => {
  let sandbox: TestApp;
  let production: TestApp;
  let tenant: TestTenant;
  let liveTenant: TestTenant;

  beforeAll(async () => {
    sandbox = await startApp({ config: { appEnv: 'sandbox', webhookAllowPrivateTargets: false } });
    production = await startApp({
      config: { appEnv: 'production', webhookAllowPrivateTargets: false },
      database: sandbox.deps.database,
    });
    tenant = await createTestTenant(sandbox.deps);
    liveTenant = await createTestTenant(production.deps);
  });

  afterAll(async () => {
    await production?.app.close();
    await sandbox?.app.close();
  });

  it('refuses http://localhost until the sandbox tenant turns allowLoopbackWebhooks on, and says how', async () => {
    const shop = api(sandbox, tenant.keys.commerce);
    const admin = api(sandbox, tenant.keys.admin);
    const plain = await shop.post('/webhooks', { url: 'http://localhost:4999/hook', events: ['*'] });
    expect(plain.statusCode).toBe(400);
    const refused = errorBody(plain);
    expect(refused.code).toBe('validation_failed');
    expect(refused.details).toMatchObject([
      {
        field: 'url',
        rule: 'https',
        message:
          'url must use https (got http:); for local development turn on loopback targets in this sandbox: ' +
          'PATCH /api/v1/admin/settings {"allowLoopbackWebhooks": true} (or run `commerce-agent webhooks listen --forward-to <url>`)',
      },
    ]);
    const secure = errorBody(
      await shop.post('/webhooks', { url: 'https://127.0.0.1:4999/hook', events: ['*'] }),
    );
    expect(secure.details?.[0]).toMatchObject({ field: 'url', rule: 'public_target' });
    expect(secure.details?.[0]?.message).toContain('{"allowLoopbackWebhooks": true}');

    expect((await admin.get('/admin/settings')).json().data.allowLoopbackWebhooks).toBe(false);
    const turnedOn = await admin.patch('/admin/settings', { allowLoopbackWebhooks: true });
    expect(turnedOn.statusCode).toBe(200);
    expect(turnedOn.json().data).toMatchObject({ tenantId: tenant.tenantId, allowLoopbackWebhooks: true });

    const created = await shop.post('/webhooks', { url: 'http://localhost:4999/hook', events: ['*'] });
    expect(created.statusCode).toBe(201);
    expect(created.json().data.url).toBe('http://localhost:4999/hook');
    // Only loopback hosts: http elsewhere is still refused, without the hint.
    const elsewhere = errorBody(
      await shop.post('/webhooks', { url: 'http://example.com/hook', events: ['*'] }),
    );
    expect(elsewhere.details?.[0]).toMatchObject({
      field: 'url',
      rule: 'https',
      message: 'url must use https (got http:)',
    });
  });

  it('is refused in production, where a loopback URL is told the setting is sandbox only', async () => {
    const admin = api(production, liveTenant.keys.admin);
    const on = await admin.patch('/admin/settings', { allowLoopbackWebhooks: true });
    expect(on.statusCode).toBe(400);
    expect(errorBody(on).code).toBe('validation_failed');
    expect(errorBody(on).details).toMatchObject([
      {
        field: 'allowLoopbackWebhooks',
        rule: 'sandbox_only',
        message:
          'allowLoopbackWebhooks can be turned on only in the sandbox environment; this deployment serves ' +
          'production, where webhooks need an https URL on a public address',
      },
    ]);
    expect((await admin.patch('/admin/settings', { allowLoopbackWebhooks: false })).statusCode).toBe(200);
    const hook = await api(production, liveTenant.keys.commerce).post('/webhooks', {
      url: 'http://localhost:4999/hook',
      events: ['*'],
    });
    expect(hook.statusCode).toBe(400);
    expect(errorBody(hook).details?.[0]?.message).toBe(
      'url must use https (got http:); loopback http targets (allowLoopbackWebhooks) exist only in the sandbox environment',
    );
  });

  it('delivers to the loopback target while the setting is on, and refuses at send time once it is off', async () => {
    const receiver = await startLocalReceiver();
    const shop = api(sandbox, tenant.keys.commerce);
    const admin = api(sandbox, tenant.keys.admin);
    expect((await admin.patch('/admin/settings', { allowLoopbackWebhooks: true })).statusCode).toBe(200);
    const created = await shop.post('/webhooks', { url: receiver.url, events: ['webhook.test'] });
    expect(created.statusCode).toBe(201);
    const { id: webhookId, secret } = created.json().data as { id: string; secret: string };
    const { deps } = sandbox;
    const sender = createSender({ allowPrivateTargets: false });
    const worker = new DeliveryWorker(
      {
        db: deps.db,
        clock: deps.clock,
        logger: pino({ level: 'silent' }),
        keyRing: deps.keyRing,
        sender,
        ...loopbackSetting(deps.config, deps.db),
      },
      { concurrency: 2, pollIntervalMs: 50, tenantIds: [tenant.tenantId] },
    );
    const delivery = async (id: string) =>
      (await shop.get(`/webhooks/${webhookId}/deliveries/${id}`)).json().data as {
        status: string;
        attempts: { responseStatus: number | null; error: string | null }[];
      };
    worker.start();
    try {
      const first = (await shop.post(`/webhooks/${webhookId}/test`)).json().data as { id: string };
      await waitFor(async () => (await delivery(first.id)).status === 'succeeded', 'the loopback delivery');
      expect(receiver.received).toHaveLength(1);
      const got = receiver.received[0] as Received;
      const flat = Object.fromEntries(Object.entries(got.headers).map(([k, v]) => [k, String(v)]));
      expect(new StandardWebhook(secret).verify(got.body, flat)).toMatchObject({
        id: first.id,
        event: 'webhook.test',
        tenantId: tenant.tenantId,
      });

      expect((await admin.patch('/admin/settings', { allowLoopbackWebhooks: false })).statusCode).toBe(200);
      const second = (await shop.post(`/webhooks/${webhookId}/test`)).json().data as { id: string };
      await waitFor(async () => (await delivery(second.id)).attempts.length > 0, 'the refused attempt');
      const refused = await delivery(second.id);
      expect(refused.status).toBe('failed');
      expect(refused.attempts[0]).toMatchObject({
        responseStatus: null,
        error:
          'blocked target: 127.0.0.1 is a non-public address (the tenant has not turned on allowLoopbackWebhooks)',
      });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await worker.stop();
      await sender.close();
      await receiver.close();
    }
  });
});
