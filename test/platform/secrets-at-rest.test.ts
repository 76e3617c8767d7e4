import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyRing, LEGACY_KEY_ID } from '../../src/core/key-ring.js';
import { type Database, rowsOf } from '../../src/db/client.js';
import { resealSecrets } from '../../src/db/sealing.js';
import { TABLE_LAYOUT } from '../../src/schema.js';
import {
  bearer,
  createScratchDatabase,
  createTestTenant,
  ownPgliteDatabase,
  startApp,
  type TestApp,
  type TestTenant,
  usingPostgres,
} from '../harness.js';

// "Nothing secret at rest": every secret the API hands out once (an API key, a webhook signing
// secret, the payment provider's signing secret), each created with an Idempotency-Key so its
// response is kept for replay, is found in no text, json or bytea column of the database.

type Column = { table_name: string; column_name: string; data_type: string };

async function textColumns(db: Database['db']): Promise<Column[]> {
  return rowsOf<Column>(
    await db.execute(sql`select table_name, column_name, data_type from information_schema.columns
      where table_schema = 'public' and data_type in ('text', 'character varying', 'json', 'jsonb', 'bytea')`),
  );
}

/** Where each needle appears: `table.column`, for every column holding text. */
async function findAnywhere(db: Database['db'], needles: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const c of await textColumns(db)) {
    const value =
      c.data_type === 'bytea'
        ? sql`encode(${sql.raw(`"${c.column_name}"`)}, 'escape')`
        : sql`${sql.raw(`"${c.column_name}"`)}::text`;
    // One scan per column for all needles: on Citus each statement visits every shard.
    const [hits] = rowsOf<Record<string, number | string>>(
      await db.execute(
        sql`select ${sql.join(
          needles.map(
            (needle, i) =>
              sql`count(*) filter (where position(${needle} in ${value}) > 0) as ${sql.raw(`n${i}`)}`,
          ),
          sql`, `,
        )} from ${sql.raw(`"${c.table_name}"`)}`,
      ),
    );
    needles.forEach((needle, i) => {
      if (Number(hits?.[`n${i}`]) > 0)
        found.push(`${c.table_name}.${c.column_name} holds ${needle.slice(0, 12)}...`);
    });
  }
  return found;
}

describe('nothing secret at rest', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let database: Database;
  let dropScratch: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    // A database of its own: it scans every sealed column, and the shared one holds other files'
    // rows (sealed by other rings, or fixtures such as outbox.test.ts's 'v1.test').
    if (usingPostgres) {
      const scratch = await createScratchDatabase();
      database = scratch.database;
      dropScratch = scratch.drop;
    } else {
      database = await ownPgliteDatabase();
      dropScratch = () => database.close();
    }
    t = await startApp({ database, config: { webhookAllowPrivateTargets: true } });
    tenant = await createTestTenant(t.deps);
  });
  afterAll(async () => {
    await t.app.close();
    await dropScratch?.();
  });

  const send = async (method: 'POST' | 'PUT', url: string, payload: object, key = tenant.keys.admin) => {
    const res = await t.app.inject({
      method,
      url: `/api/v1${url}`,
      headers: { ...bearer(key), 'idempotency-key': randomUUID() },
      payload,
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return { data: res.json().data, raw: res.body };
  };

  it('keeps no issued key, webhook secret or provider secret in any column, stored responses included', async () => {
    const issued = await send('POST', '/admin/api-keys', { name: 'scan', scopes: ['read'] });
    const hook = await send(
      'POST',
      '/webhooks',
      { url: 'https://127.0.0.1:9/hook', events: ['*'] },
      tenant.keys.commerce,
    );
    const rotated = await send('POST', `/webhooks/${hook.data.id}/rotate-secret`, {}, tenant.keys.commerce);
    const provider = await send('PUT', '/admin/payment-provider', { provider: 'sandbox' });
    const secrets = [
      issued.data.key,
      hook.data.secret,
      rotated.data.secret,
      provider.data.secret,
    ] as string[];
    for (const s of secrets) expect(s).toMatch(/^(cak_|whsec_)/);
    // The secret part alone, without its recognisable prefix, must not be there either.
    const needles = secrets.flatMap((s) => [s, s.replace(/^(cak_(test|live)_|whsec_)/, '').slice(0, 24)]);
    expect(await findAnywhere(t.deps.db, needles)).toEqual([]);

    // The replays still answer with the secret, byte for byte: sealed, not lost.
    const replay = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/payment-provider',
      headers: { ...bearer(tenant.keys.admin), 'idempotency-key': 'scan-replay' },
      payload: { provider: 'sandbox' },
    });
    const again = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/payment-provider',
      headers: { ...bearer(tenant.keys.admin), 'idempotency-key': 'scan-replay' },
      payload: { provider: 'sandbox' },
    });
    expect(again.headers['x-idempotency-replayed']).toBe('true');
    expect(again.body).toBe(replay.body);
    expect(await findAnywhere(t.deps.db, [replay.json().data.secret])).toEqual([]);
  });

  it('every sealed column holds only ciphertexts of the ring', async () => {
    // Declared next to each table (src/db/table-traits.ts), gathered by src/schema.ts.
    expect(TABLE_LAYOUT.sealed.map((c) => `${c.table}.${c.column}:${c.key.join(',')}`).sort()).toEqual([
      'idempotency_keys.response_body:tenant_id,idempotency_key,method,path',
      'provider_integrations.secret:tenant_id,provider',
      'seller_signing_keys.private_key_ciphertext:tenant_id,kid',
      'webhook_subscriptions.previous_secret_ciphertext:tenant_id,id',
      'webhook_subscriptions.secret_ciphertext:tenant_id,id',
    ]);
    for (const c of TABLE_LAYOUT.sealed) {
      const rows = rowsOf<{ v: string }>(
        await t.deps.db.execute(
          sql`select ${sql.raw(`"${c.column}"`)} as v from ${sql.raw(`"${c.table}"`)} where ${sql.raw(`"${c.column}"`)} is not null`,
        ),
      );
      for (const { v } of rows) expect(v).toMatch(/^ek1\.test\./);
    }
  });

  it('rotates: a new first key seals, the old still opens, and rotation re-seals everything under the new', async () => {
    const old = t.deps.keyRing;
    const fresh = { id: 'k2', key: randomBytes(32) };
    const rotatedRing = new KeyRing([fresh, ...old.keys], 'test');
    const before = await resealSecrets(t.deps.db, rotatedRing, 'clear', TABLE_LAYOUT.sealed);
    expect(before.every((r) => r.resealed === 0)).toBe(true);
    const report = await resealSecrets(t.deps.db, rotatedRing, 'rotate', TABLE_LAYOUT.sealed);
    expect(report.reduce((n, r) => n + r.resealed, 0)).toBeGreaterThan(0);
    expect(report.every((r) => r.remaining === 0)).toBe(true);
    // The old key can now go: a ring of the new key alone opens every stored secret.
    const onlyNew = new KeyRing([fresh], 'test');
    for (const c of TABLE_LAYOUT.sealed) {
      const rows = rowsOf<{ v: string }>(
        await t.deps.db.execute(
          sql`select ${sql.raw(`"${c.column}"`)} as v from ${sql.raw(`"${c.table}"`)} where ${sql.raw(`"${c.column}"`)} is not null`,
        ),
      );
      for (const { v } of rows) expect(() => onlyNew.open(c.purpose, v)).not.toThrow();
    }
    await resealSecrets(t.deps.db, old, 'rotate', TABLE_LAYOUT.sealed); // back to the app's ring for the other tests
  });
});

describe('the key ring', () => {
  const ring = new KeyRing(
    [
      { id: 'k2', key: randomBytes(32) },
      { id: LEGACY_KEY_ID, key: randomBytes(32) },
    ],
    'test',
  );

  it('seals with the first key, opens with any, authenticates purpose and key id', () => {
    const sealed = ring.seal('provider_secret', 'whsec_x');
    expect(sealed).toMatch(/^ek1\.k2\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(ring.seal('provider_secret', 'whsec_x')).not.toBe(sealed); // a fresh IV each time
    expect(ring.open('provider_secret', sealed)).toBe('whsec_x');
    expect(() => ring.open('webhook_secret', sealed)).toThrow();
    expect(() => ring.open('provider_secret', sealed.replace('ek1.k2.', `ek1.${LEGACY_KEY_ID}.`))).toThrow();
    expect(() => ring.open('provider_secret', sealed.replace('ek1.k2.', 'ek1.gone.'))).toThrow(
      /not in the key ring/,
    );
    const parts = sealed.split('.');
    parts[4] = Buffer.from('forged').toString('base64url');
    expect(() => ring.open('provider_secret', parts.join('.'))).toThrow();
  });

  it('opens the format of earlier releases under the legacy key', async () => {
    const { createCipheriv } = await import('node:crypto');
    const legacy = ring.keys[1]?.key as Buffer;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', legacy, iv);
    const data = Buffer.concat([cipher.update('whsec_old', 'utf8'), cipher.final()]);
    const v1 = ['v1', iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
    expect(ring.open('webhook_secret', v1)).toBe('whsec_old');
    expect(ring.isCurrent(v1)).toBe(false);
  });
});
