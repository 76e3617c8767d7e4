import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/modules/api-keys/index.js';
import { createTenant } from '../../src/modules/tenants/index.js';
import { createScratchDatabase, usingPostgres } from '../harness.js';
import { childEnv, freePort, spawnScript } from '../support/service-processes.js';
import { waitFor } from '../support/wait.js';
import { type Receiver, startReceiver, TEST_CA_FILE } from '../support/webhook-receiver.js';

// The real server (src/main.ts) as a child process, exercised over real HTTP.

const _ROOT = fileURLToPath(new URL('../..', import.meta.url));
const KEY = /cak_test_[0-9A-Za-z]{32}/g;
const READY_TIMEOUT_MS = 60_000;

interface Server {
  child: ChildProcess;
  port: number;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcess>();
const tempDirs: string[] = [];

async function startServer(
  dataDir: string,
  env: Record<string, string> = {},
  /** The entry point: the server, or the standalone webhook worker (`src/worker.ts`). */
  script = 'src/main.ts',
): Promise<Server> {
  const port = await freePort();
  const proc = spawnScript(script, [], childEnv(dataDir, { PORT: String(port), LOG_LEVEL: 'info', ...env }));
  children.add(proc.child);
  void proc.exited.then(() => children.delete(proc.child));
  return { ...proc, port };
}

const url = (server: Server, p: string) => `http://127.0.0.1:${server.port}${p}`;

async function waitReady(server: Server): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exited = false;
  void server.exited.then(() => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) {
      throw new Error(`server exited before becoming ready:\n${server.stderr()}\n${server.stdout()}`);
    }
    try {
      const res = await fetch(url(server, '/readyz'), { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server not ready within ${READY_TIMEOUT_MS} ms:\n${server.stderr()}\n${server.stdout()}`);
}

async function exitWithin(server: Server, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`process did not exit within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([server.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function stop(server: Server) {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return server.exited;
  server.child.kill('SIGTERM');
  return exitWithin(server, 10_000);
}

function manifest(server: Server, key: string) {
  return fetch(url(server, '/api/v1/manifest'), { headers: { authorization: `Bearer ${key}` } });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function newTempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cak-process-'));
  tempDirs.push(dir);
  return dir;
}

describe('server process', () => {
  let dataDir: string;
  let first: Server;
  let readKey: string;

  beforeAll(() => {
    dataDir = newTempDir();
  });

  afterAll(async () => {
    for (const child of children) {
      child.kill('SIGTERM');
    }
    await new Promise((r) => setTimeout(r, children.size > 0 ? 2_000 : 0));
    for (const child of children) child.kill('SIGKILL');
    for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('first start on an empty data dir seeds the demo tenant and prints its keys once', async () => {
    first = await startServer(dataDir);
    await waitReady(first);

    const out = first.stdout();
    expect(out).toContain('Demo tenant created');
    const printed = [...new Set(out.match(KEY) ?? [])];
    expect(printed).toHaveLength(3);

    const file = path.join(dataDir, 'demo-keys.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // The encryption key file is generated once, private, and its place printed.
    const keyFile = path.join(dataDir, 'encryption.keys');
    expect(out).toContain(`Generated the encryption key file ${keyFile} (mode 0600)`);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(keyFile, 'utf8')).toMatch(/^k\d{8}:[0-9a-f]{64}$/m);
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      environment: string;
      keys: Record<string, string>;
    };
    expect(saved.environment).toBe('sandbox');
    expect(Object.keys(saved.keys).sort()).toEqual(['admin', 'commerce', 'read']);
    expect(Object.values(saved.keys).sort()).toEqual([...printed].sort());
    for (const key of Object.values(saved.keys)) expect(key).toMatch(/^cak_test_[0-9A-Za-z]{32}$/);
    readKey = saved.keys.read as string;
    expect(out).toMatch(new RegExp(`read\\s+${readKey}`));

    const res = await manifest(first, readKey);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { capabilities: { eventTypes: string[] } } };
    expect(body.data.capabilities.eventTypes).toContain('order.created');

    // The demo tenant comes with the demo catalog, and the banner says where it is.
    expect(out).toContain('examples/demo-catalog.yaml');
    const catalog = await fetch(url(first, '/api/v1/catalog'), {
      headers: { authorization: `Bearer ${readKey}` },
    });
    expect(catalog.status).toBe(200);
    expect(((await catalog.json()) as { data: unknown[] }).data).toHaveLength(6);
    const { accountId } = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-keys.json'), 'utf8')) as {
      accountId: string;
    };
    const invoices = await fetch(url(first, `/api/v1/accounts/${accountId}/invoices`), {
      headers: { authorization: `Bearer ${readKey}` },
    });
    expect(invoices.status).toBe(200);
    expect(((await invoices.json()) as { data: unknown[] }).data).toHaveLength(3);

    expect((await fetch(url(first, '/healthz'))).status).toBe(200);
    expect(fs.readFileSync(path.join(dataDir, 'server.lock'), 'utf8')).toBe(String(first.child.pid));
  }, 70_000);

  it('refuses a second process on the same data dir while the first runs', async () => {
    const second = await startServer(dataDir);
    const { code } = await exitWithin(second, 30_000);
    expect(code).not.toBe(0);
    expect(second.stderr()).toMatch(/data directory .* is in use by another process/);
    expect(second.stderr()).toContain(`pid ${first.child.pid}`);
    expect(second.stdout()).not.toMatch(KEY);

    // The loser must not have disturbed the running server or its lock.
    expect((await fetch(url(first, '/healthz'))).status).toBe(200);
    expect(fs.readFileSync(path.join(dataDir, 'server.lock'), 'utf8')).toBe(String(first.child.pid));
  }, 40_000);

  it('exits 0 on SIGTERM, releases the lock, and keeps the keys across a restart', async () => {
    const started = Date.now();
    first.child.kill('SIGTERM');
    const { code, signal } = await exitWithin(first, 10_000);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(first.stdout()).toContain('shutting down');
    expect(fs.existsSync(path.join(dataDir, 'server.lock'))).toBe(false);
    // Everything the embedded server wrote (the database files included) is private to its user.
    const loose: string[] = [];
    const walk = (dir: string) => {
      if ((fs.statSync(dir).mode & 0o777) !== 0o700) loose.push(dir);
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if ((fs.statSync(full).mode & 0o777) !== 0o600) loose.push(full);
      }
    };
    walk(dataDir);
    expect(loose).toEqual([]);

    const again = await startServer(dataDir);
    try {
      await waitReady(again);
      expect(again.stdout()).not.toContain('Generated the encryption key file');
      expect(again.stdout()).not.toContain('Demo tenant created');
      expect(again.stdout()).not.toMatch(KEY);
      expect((await manifest(again, readKey)).status).toBe(200);
    } finally {
      expect((await stop(again)).code).toBe(0);
    }
    expect(fs.existsSync(path.join(dataDir, 'server.lock'))).toBe(false);
  }, 60_000);

  it('takes over a stale lock left by a process that no longer exists', async () => {
    let deadPid = 999_999;
    while (isAlive(deadPid)) deadPid++;
    const lockFile = path.join(dataDir, 'server.lock');
    fs.writeFileSync(lockFile, String(deadPid));

    const server = await startServer(dataDir);
    try {
      await waitReady(server);
      expect(fs.readFileSync(lockFile, 'utf8')).toBe(String(server.child.pid));
      expect((await manifest(server, readKey)).status).toBe(200);
    } finally {
      expect((await stop(server)).code).toBe(0);
    }
    expect(fs.existsSync(lockFile)).toBe(false);
  }, 60_000);

  it('exits non-zero naming the variable on invalid configuration', async () => {
    const cases: { env: Record<string, string>; variable: string }[] = [
      { env: { PORT: 'abc' }, variable: 'PORT' },
      { env: { APP_ENV: 'staging' }, variable: 'APP_ENV' },
      // PostgreSQL with no encryption key: refused before anything connects (the port is closed).
      { env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }, variable: 'APP_ENCRYPTION_KEYS' },
      { env: { APP_ENCRYPTION_KEYS: 'k1:abc' }, variable: 'APP_ENCRYPTION_KEYS' },
    ];
    const results = await Promise.all(
      cases.map(async ({ env, variable }) => {
        const dir = newTempDir();
        const server = await startServer(dir, env);
        const { code } = await exitWithin(server, 30_000);
        return { code, variable, stderr: server.stderr(), dir };
      }),
    );
    for (const { code, variable, stderr, dir } of results) {
      expect(code).not.toBe(0);
      expect(stderr).toContain(`Invalid configuration: ${variable}`);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      // Config is validated before anything touches the data directory.
      expect(fs.readdirSync(dir)).toEqual([]);
    }
  }, 40_000);
});

describe('webhook delivery processes', () => {
  let receiver: Receiver;
  const deliveryEnv = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CA_FILE: TEST_CA_FILE };

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  const scratches: { drop(): Promise<void> }[] = [];
  afterAll(async () => {
    await receiver.close();
    for (const child of children) child.kill('SIGKILL');
    for (const scratch of scratches) await scratch.drop();
    for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function subscribeAndTest(server: Server, commerceKey: string) {
    const headers = { authorization: `Bearer ${commerceKey}`, 'content-type': 'application/json' };
    const created = await fetch(url(server, '/api/v1/webhooks'), {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url, events: ['*'] }),
    });
    expect(created.status).toBe(201);
    const hook = ((await created.json()) as { data: { id: string } }).data;
    const test = await fetch(url(server, `/api/v1/webhooks/${hook.id}/test`), { method: 'POST', headers });
    expect(test.status).toBe(202);
    const delivery = ((await test.json()) as { data: { id: string } }).data;
    return { hook, delivery, headers };
  }

  const waitForReceipt = (id: string) =>
    waitFor(() => receiver.receipts.some((r) => r.headers['webhook-id'] === id), `delivery ${id} received`);

  it('the embedded server sends deliveries with its in-process worker', async () => {
    const dir = newTempDir();
    const server = await startServer(dir, deliveryEnv);
    await waitReady(server);
    const demo = JSON.parse(fs.readFileSync(path.join(dir, 'demo-keys.json'), 'utf8'));
    const { delivery } = await subscribeAndTest(server, demo.keys.commerce);
    await waitForReceipt(delivery.id);
    expect((await stop(server)).code).toBe(0);
  }, 90_000);

  it('`npm run worker` refuses the embedded database, naming DATABASE_URL', async () => {
    const worker = await startServer(newTempDir(), {}, 'src/worker.ts');
    const { code } = await exitWithin(worker, 30_000);
    expect(code).toBe(1);
    expect(worker.stderr()).toContain('Invalid configuration: DATABASE_URL');
  }, 40_000);

  it.skipIf(!usingPostgres)(
    'on PostgreSQL a worker process sends what an API process without a worker queued (NOTIFY)',
    async () => {
      const scratch = await createScratchDatabase();
      scratches.push(scratch);
      const env = {
        ...deliveryEnv,
        DATABASE_URL: scratch.url,
        APP_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('hex')}`,
        WEBHOOK_POLL_INTERVAL_MS: '60000',
      };
      const { database } = scratch;
      const tenant = await createTenant(database.db, 'worker process tenant');
      const { secret } = await issueApiKey(database.db, tenant.id, {
        name: 'commerce',
        scopes: ['commerce'],
        rateTier: 'unlimited',
        environment: 'production',
      });
      const api = await startServer(newTempDir(), { ...env, WEBHOOK_WORKER: 'false', APP_ENV: 'production' });
      const worker = await startServer(newTempDir(), { ...env, APP_ENV: 'production' }, 'src/worker.ts');
      await waitReady(api);
      await waitFor(() => worker.stdout().includes('webhook delivery worker ready'), 'the worker ready');
      await new Promise((r) => setTimeout(r, 500)); // its LISTEN is established
      const { hook, delivery, headers } = await subscribeAndTest(api, secret);
      await waitForReceipt(delivery.id);
      const status = async () => {
        const res = await fetch(url(api, `/api/v1/webhooks/${hook.id}/deliveries/${delivery.id}`), {
          headers,
        });
        return ((await res.json()) as { data: { status: string } }).data.status;
      };
      await waitFor(async () => (await status()) === 'succeeded', 'the delivery recorded as succeeded');
      expect((await stop(worker)).code).toBe(0);
      expect((await stop(api)).code).toBe(0);
    },
    90_000,
  );
});
