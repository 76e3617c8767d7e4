import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookReceiver, type ReceivedEvent } from '../../examples/webhook-receiver.js';
import {
  childEnv,
  cleanUpProcesses,
  type Proc,
  runCli,
  spawnScript,
  startServerProcess,
} from '../support/service-processes.js';
import { waitFor } from '../support/wait.js';

// `commerce-agent webhooks listen` over real processes: the embedded server, the CLI listening
// beside it (found through DATA_DIR/server.json, with the demo admin key), and
// examples/webhook-receiver.ts as the local app it forwards to, verifying every signature.

const WORKSHOP = '0190a000-0000-7000-8000-000000000005'; // one-time product of the demo catalog
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

describe('webhooks listen and trigger', { timeout: 180_000 }, () => {
  let server: Awaited<ReturnType<typeof startServerProcess>>;
  let demo: { tenantId: string; keys: Record<string, string> };
  // The local app's port is opened first; the receiver is made once listen prints its secret.
  let app: http.Server;
  let appUrl: string;
  let handle: http.RequestListener | undefined;
  const events: ReceivedEvent[] = [];

  beforeAll(async () => {
    server = await startServerProcess();
    demo = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'demo-keys.json'), 'utf8'));
    app = http.createServer((req, res) => (handle ? handle(req, res) : res.writeHead(503).end()));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appUrl = `http://localhost:${(app.address() as AddressInfo).port}/hook`;
  }, 120_000);

  afterAll(async () => {
    await new Promise<void>((resolve) => app?.close(() => resolve()));
    await cleanUpProcesses();
  });

  const call = (method: string, apiPath: string, key: string, body?: unknown) =>
    fetch(`${server.url}/api/v1${apiPath}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(method === 'POST' ? { 'idempotency-key': crypto.randomUUID() } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('forwards an order’s deliveries, signed, to the local app and prints each with its status', async () => {
    const listen: Proc = spawnScript(
      'src/cli/main.ts',
      ['webhooks', 'listen', '--forward-to', appUrl],
      childEnv(server.dataDir),
    );
    await waitFor(() => listen.stdout().includes('Ready:') || listen.child.exitCode !== null, 'listen ready');
    expect(listen.stderr()).toBe('');
    expect(listen.stdout()).toContain(
      'Turned on allowLoopbackWebhooks for this tenant (sandbox), so it can deliver here.',
    );
    const ready = listen.stdout().match(/webhook (\S+), signing secret (whsec_\S+)\)/);
    expect(ready).not.toBeNull();
    const [, webhookId, secret] = ready as RegExpMatchArray;
    handle = createWebhookReceiver({
      secrets: [secret as string],
      tenantId: demo.tenantId,
      onEvent: (event) => events.push(event),
    }).listeners('request')[0] as http.RequestListener;

    const order = await call('POST', '/orders', demo.keys.commerce as string, {
      items: [{ productId: WORKSHOP, quantity: 1 }],
    });
    expect(order.status).toBe(201);
    const orderId = ((await order.json()) as { data: { id: string } }).data.id;
    await waitFor(
      () => events.some((e) => e.event === 'order.created' && (e.data as { id?: string }).id === orderId),
      'order.created at the local app',
    );
    // The receiver verified the signature (a bad one is answered 401, printed as such).
    await waitFor(
      () => new RegExp(`order\\.created  ${UUID}  -> 204`).test(listen.stdout()),
      'the forwarded delivery printed with its status',
    );

    const trigger = await runCli(['webhooks', 'trigger'], childEnv(server.dataDir));
    expect(trigger.stderr).toBe('');
    expect(trigger.code).toBe(0);
    expect(trigger.stdout).toMatch(
      new RegExp(`^Queued webhook\\.test ${UUID} to webhook ${webhookId} \\(pending\\)\\n$`),
    );
    await waitFor(() => events.some((e) => e.event === 'webhook.test'), 'the test event at the local app');
    await waitFor(() => /webhook\.test {2}\S+ {2}-> 204/.test(listen.stdout()), 'the test event printed');

    listen.child.kill('SIGINT');
    expect((await listen.exited).code).toBe(0);
    expect(listen.stdout()).toContain(`Stopped: webhook ${webhookId} removed.`);
    const left = await call('GET', '/webhooks', demo.keys.read as string);
    expect(((await left.json()) as { data: { id: string }[] }).data.map((w) => w.id)).not.toContain(
      webhookId,
    );
  });

  it('prints a refused signature as the local app’s 401, and trigger without a listener says what to do', async () => {
    handle = createWebhookReceiver({
      secrets: ['whsec_wrong'],
      tenantId: demo.tenantId,
      onEvent: () => {},
    }).listeners('request')[0] as http.RequestListener;
    const listen = spawnScript(
      'src/cli/main.ts',
      ['webhooks', 'listen', '--forward-to', appUrl],
      childEnv(server.dataDir),
    );
    await waitFor(() => listen.stdout().includes('Ready:') || listen.child.exitCode !== null, 'listen ready');
    const trigger = await runCli(['webhooks', 'trigger', 'webhook.test'], childEnv(server.dataDir));
    expect(trigger.code).toBe(0);
    await waitFor(
      () => /webhook\.test {2}\S+ {2}-> 401/.test(listen.stdout()),
      'the refused delivery printed',
    );
    listen.child.kill('SIGINT');
    expect((await listen.exited).code).toBe(0);

    const none = await runCli(['webhooks', 'trigger'], childEnv(server.dataDir));
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      'Error: No listening endpoint: run `commerce-agent webhooks listen` first, or give --webhook <id>\n',
    );
    const other = await runCli(['webhooks', 'trigger', 'order.created'], childEnv(server.dataDir));
    expect(other.code).toBe(1);
    expect(other.stderr.trim().split('\n')).toHaveLength(1);
    expect(other.stderr).toContain('Only webhook.test can be sent on demand');
  });
});
