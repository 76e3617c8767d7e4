import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPglite } from '../../src/db/client.js';
import { TABLE_LAYOUT } from '../../src/schema.js';
import { expectFeed } from '../agentic/schemas/acp/index.js';
import { createTestTenant, startApp } from '../harness.js';
import { api } from '../support/api.js';
import { nodeArgs } from '../support/built-src.js';
import { adminPost } from '../support/catalog-fixtures.js';

// `commerce-agent feeds export` (the real CLI as a child process, on an embedded PGlite data dir
// an in-process app filled first): the same lines as GET /admin/feeds/acp, to standard output or
// to a file.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BASE = 'https://api.acme.example';

function cli(dataDir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
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
          PUBLIC_BASE_URL: BASE,
        },
        timeout: 120_000,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 2 ** 20,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('feeds export (CLI)', { timeout: 240_000 }, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cak-feed-cli-'));
  let tenantId: string;
  let served: string;

  beforeAll(async () => {
    const database = await openPglite(dataDir);
    await database.migrate(TABLE_LAYOUT);
    const t = await startApp({ database, config: { appEnv: 'sandbox', publicBaseUrl: BASE } });
    try {
      const tenant = await createTestTenant(t.deps);
      tenantId = tenant.tenantId;
      for (const name of ['Mug', 'Lamp', 'Draft'])
        await adminPost(t, tenant, 'products', {
          name,
          type: 'one_time',
          currency: 'EUR',
          charges: [{ name: 'Unit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 990 }] }],
        });
      const all = (await api(t, tenant.keys.admin).get('/catalog')).json().data as {
        id: string;
        name: string;
      }[];
      const draft = all.find((p) => p.name === 'Draft')?.id;
      const admin = api(t, tenant.keys.admin);
      await admin.put(`/admin/products/${draft}/content/en`, { title: 'Draft' });
      await admin.patch(`/admin/products/${draft}/content`, { status: 'draft' });
      const res = await admin.get('/admin/feeds/acp');
      expect(res.statusCode, res.body).toBe(200);
      served = res.body;
    } finally {
      await t.app.close();
      await database.close();
    }
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('writes the feed the route serves, to standard output and to a file', async () => {
    expect(served.trimEnd().split('\n')).toHaveLength(2);
    for (const line of served.trimEnd().split('\n')) expectFeed('Product', JSON.parse(line));

    const printed = await cli(dataDir, ['feeds', 'export', '--tenant', tenantId]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toBe(served);

    const out = path.join(dataDir, 'products.jsonl');
    const written = await cli(dataDir, ['feeds', 'export', '--tenant', tenantId, '--out', out, '--json']);
    expect(written.code, written.stderr).toBe(0);
    expect(JSON.parse(written.stdout)).toMatchObject({ products: 2, bytes: Buffer.byteLength(served), out });
    expect(fs.readFileSync(out, 'utf8')).toBe(served);
    expect(fs.readdirSync(dataDir).filter((f) => f.endsWith('.partial'))).toEqual([]);
  });

  it('refuses a missing --tenant (exit 2, usage) and an unknown tenant (exit 1, one line naming the fix)', async () => {
    const missing = await cli(dataDir, ['feeds', 'export']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--tenant is required');
    expect(missing.stderr).toContain('feeds export --tenant <id>');
    const unknown = await cli(dataDir, [
      'feeds',
      'export',
      '--tenant',
      '00000000-0000-7000-8000-000000000000',
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'Error: Tenant 00000000-0000-7000-8000-000000000000 not found (`commerce-agent tenants list` lists them)\n',
    );
  });
});
