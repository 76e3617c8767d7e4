import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Database, openPglite } from '../../src/db/client.js';
import { bearer, errorBody, startApp, type TestApp } from '../harness.js';
import { nodeArgs } from '../support/built-src.js';

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
    // Sequential on the already-migrated data dir: the CLI opens the database before it validates
    // the command, and opening an existing one is much faster than initialising a fresh one.
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
