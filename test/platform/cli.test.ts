import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Database, openPglite } from '../../src/db/client.js';
import { bearer, errorBody, startApp, type TestApp } from '../harness.js';
import { nodeArgs } from '../support/built-src.js';
import {
  childEnv,
  cleanUpProcesses,
  tempDir as processTempDir,
  runCli,
  startServerProcess,
} from '../support/service-processes.js';

// The real CLI (src/cli/main.ts) as child processes on an embedded PGlite data dir, then the keys it
// issued proven over HTTP by an in-process app on the same data dir.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(dataDir: string, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs(inject('builtRoot'), 'src/cli/main.ts'), ...args],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: '',
          REDIS_URL: '',
          APP_ENV: 'sandbox',
          DATA_DIR: dataDir,
          LOG_LEVEL: 'warn',
        },
        timeout: 120_000, // PGlite start and migrations on a busy machine
        killSignal: 'SIGKILL',
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs a command that must succeed and parses its --json output. */
async function cliJson<T>(dataDir: string, args: string[]): Promise<T> {
  const result = await cli(dataDir, [...args, '--json']);
  if (result.code !== 0) {
    throw new Error(`cli ${args.join(' ')} exited ${result.code}:\n${result.stderr}\n${result.stdout}`);
  }
  return JSON.parse(result.stdout) as T;
}

interface IssuedKey {
  id: string;
  tenantId: string;
  environment: string;
  scopes: string[];
  rateTier: string;
  keyPrefix: string;
  revokedAt: string | null;
  key: string;
}

describe('commerce-agent CLI', { timeout: 240_000 }, () => {
  const tempDirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cak-cli-'));
    tempDirs.push(dir);
    return dir;
  };
  let dataDir: string;
  let tenantId: string;
  let sandboxKey: IssuedKey;
  let liveKey: IssuedKey;
  let revokedKey: IssuedKey;
  let database: Database | undefined;
  let testApp: TestApp | undefined;

  beforeAll(() => {
    dataDir = tempDir();
  });

  afterAll(async () => {
    await testApp?.app.close();
    await database?.close();
    for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates a tenant and issues sandbox and production keys', async () => {
    // One process at a time: the embedded database is locked per data dir.
    const tenant = await cliJson<{ id: string; name: string }>(dataDir, [
      'tenants',
      'create',
      '--name',
      'Acme',
    ]);
    expect(tenant.name).toBe('Acme');
    expect(tenant.id).toMatch(/^[0-9a-f-]{36}$/);
    tenantId = tenant.id;

    const issue = (...extra: string[]) =>
      cliJson<IssuedKey>(dataDir, ['keys', 'issue', '--tenant', tenantId, ...extra]);

    sandboxKey = await issue('--scopes', 'read,commerce', '--tier', 'premium');
    expect(sandboxKey.key).toMatch(/^cak_test_[0-9A-Za-z]{32}$/);
    expect(sandboxKey.scopes).toEqual(['read', 'commerce']);
    expect(sandboxKey.rateTier).toBe('premium');
    expect(sandboxKey.environment).toBe('sandbox');
    expect(sandboxKey.tenantId).toBe(tenantId);
    expect(sandboxKey.revokedAt).toBeNull();
    expect(sandboxKey.key.startsWith(sandboxKey.keyPrefix)).toBe(true);

    liveKey = await issue('--scopes', 'read,commerce', '--tier', 'premium', '--env', 'production');
    expect(liveKey.key).toMatch(/^cak_live_[0-9A-Za-z]{32}$/);
    expect(liveKey.environment).toBe('production');

    revokedKey = await issue('--scopes', 'read', '--name', 'to revoke');
    expect(revokedKey.key).toMatch(/^cak_test_/);
    expect(revokedKey.rateTier).toBe('standard');
  }, 90_000);

  it('lists keys without secrets and revokes one', async () => {
    expect(revokedKey).toBeDefined();
    const listed = await cliJson<Record<string, unknown>[]>(dataDir, ['keys', 'list', '--tenant', tenantId]);
    expect(listed.map((k) => k.id).sort()).toEqual([sandboxKey.id, liveKey.id, revokedKey.id].sort());
    for (const entry of listed) {
      expect(Object.keys(entry).filter((k) => /secret|hash|^key$/i.test(k))).toEqual([]);
      const serialized = JSON.stringify(entry);
      for (const issued of [sandboxKey, liveKey, revokedKey]) expect(serialized).not.toContain(issued.key);
    }

    const revoked = await cliJson<IssuedKey>(dataDir, [
      'keys',
      'revoke',
      '--tenant',
      tenantId,
      '--key',
      revokedKey.id,
    ]);
    expect(revoked.id).toBe(revokedKey.id);
    expect(revoked.revokedAt).not.toBeNull();
    expect(Number.isNaN(Date.parse(revoked.revokedAt as string))).toBe(false);
  }, 45_000);

  it('exits 2 with usage on stderr for an unknown command or a missing --tenant', async () => {
    // The command line is checked before anything is loaded or opened.
    const unknown = await cli(dataDir, ['frobnicate', '--json']);
    const missingTenant = await cli(dataDir, ['keys', 'list', '--json']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command: frobnicate');
    expect(unknown.stderr).toContain('Usage: commerce-agent');
    expect(unknown.stdout).toBe('');

    expect(missingTenant.code).toBe(2);
    expect(missingTenant.stderr).toContain('--tenant is required');
    expect(missingTenant.stderr).toContain('Usage: commerce-agent');
    expect(missingTenant.stdout).toBe('');
  }, 240_000);

  it('the issued keys authenticate (or not) over HTTP', async () => {
    expect(sandboxKey).toBeDefined();
    // The CLI processes have exited, so the data dir lock is free.
    expect(fs.existsSync(path.join(dataDir, 'server.lock'))).toBe(false);
    database = await openPglite(dataDir);
    testApp = await startApp({ database, config: { appEnv: 'sandbox' } });
    const { app } = testApp;

    const ok = await app.inject({ method: 'GET', url: '/api/v1/manifest', headers: bearer(sandboxKey.key) });
    expect(ok.statusCode).toBe(200);
    const manifest = ok.json() as {
      data: { tenant: { id: string }; key: { id: string; scopes: string[]; rateTier: string } };
    };
    expect(manifest.data.tenant.id).toBe(tenantId);
    expect(manifest.data.key).toMatchObject({ id: sandboxKey.id, rateTier: 'premium' });

    const live = await app.inject({ method: 'GET', url: '/api/v1/manifest', headers: bearer(liveKey.key) });
    expect(live.statusCode).toBe(401);
    expect(errorBody(live).code).toBe('unauthorized');
    expect(errorBody(live).error).toMatch(/environment/);

    const revoked = await app.inject({
      method: 'GET',
      url: '/api/v1/manifest',
      headers: bearer(revokedKey.key),
    });
    expect(revoked.statusCode).toBe(401);
    expect(errorBody(revoked).code).toBe('unauthorized');
    expect(errorBody(revoked).error).toMatch(/revoked/);
  }, 240_000);
});

describe('commerce-agent CLI: quick answers, one-line errors, beside the server', {
  timeout: 180_000,
}, () => {
  afterAll(cleanUpProcesses);
  // A database that cannot be reached: the commands below answer without opening one.
  const offline = () => childEnv(processTempDir(), { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
  const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version as string;

  it('answers --help and --version without loading the service or opening a database', async () => {
    const help = await runCli(['--help'], offline());
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout.startsWith('Usage: commerce-agent <command> [options]')).toBe(true);
    expect(help.stdout).toContain('webhooks listen [--forward-to <url>]');
    expect(await runCli(['--version'], offline())).toEqual({
      code: 0,
      stdout: `commerce-agent ${version}\n`,
      stderr: '',
    });
    const unknown = await runCli(['frobnicate'], offline());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.startsWith('Error: unknown command: frobnicate\n\nUsage: commerce-agent')).toBe(
      true,
    );
  });

  it('a missing seed file is one line naming the fix, not a stack', async () => {
    const missing = await runCli(
      ['seed', 'examples/no-such-catalog.yaml', '--tenant', '0190a000-0000-7000-8000-000000000001'],
      offline(),
    );
    expect(missing).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `Error: Seed file examples/no-such-catalog.yaml not found (from ${ROOT.replace(/\/$/, '')}); give the path ` +
        'of a YAML or JSON seed file, e.g. examples/demo-catalog.yaml\n',
    });
  });

  it('beside the running embedded server: database commands say what to do, keys go through its API', async () => {
    const server = await startServerProcess();
    const env = childEnv(server.dataDir);
    const demo = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'demo-keys.json'), 'utf8')) as {
      tenantId: string;
    };
    const list = await runCli(['tenants', 'list'], env);
    expect(list.code).toBe(1);
    expect(list.stderr.split('\n')).toEqual([
      `Error: The embedded database in ${server.dataDir} is in use by the server at ${server.url} ` +
        `(pid ${server.proc.child.pid}), and only one process can open it: stop the server and run this ` +
        'again, or run on PostgreSQL (DATABASE_URL). While it runs, the keys and feeds commands go through ' +
        'its API (see --help).',
      '',
    ]);

    const keys = await runCli(['keys', 'list', '--tenant', demo.tenantId, '--json'], env);
    expect(keys.stderr).toBe('');
    const listed = JSON.parse(keys.stdout) as { name: string; status: string }[];
    expect(listed.map((k) => k.name).sort()).toEqual([
      'demo admin key',
      'demo commerce key',
      'demo read key',
    ]);

    const issued = await runCli(
      ['keys', 'issue', '--tenant', demo.tenantId, '--scopes', 'read', '--json'],
      env,
    );
    expect(issued.code).toBe(0);
    const key = (JSON.parse(issued.stdout) as { key: string; environment: string }).key;
    const manifest = await fetch(`${server.url}/api/v1/manifest`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(manifest.status).toBe(200);

    const other = await runCli(['keys', 'list', '--tenant', '0190a000-0000-7000-8000-000000000001'], env);
    expect(other.code).toBe(1);
    expect(other.stderr).toBe(
      `Error: The API key belongs to tenant ${demo.tenantId}, not --tenant 0190a000-0000-7000-8000-000000000001: ` +
        "give that tenant's admin key with --api-key (or COMMERCE_API_KEY)\n",
    );
  });
});
