import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { tenantWhere } from '../../src/db/tenant-scope.js';
import { EVENT_TYPE_NAMES } from '../../src/events/event-types.js';
import { activeSigningSecrets, isNonPublicAddress } from '../../src/modules/webhooks/index.js';
import {
  webhookAttempts,
  webhookDeliveries,
  webhookSubscriptions,
} from '../../src/modules/webhooks/tables.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api, type Method } from '../support/api.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const KEY_HEX = 'a1'.repeat(32);
const UNKNOWN_ID = '0190f2a4-0000-7000-8000-000000000000';
const HOUR = 60 * 60 * 1000;

interface Webhook {
  id: string;
  url: string;
  events: string[];
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
  lastDeliveryAt: string | null;
  recentFailureCount: number;
  lastDeliveryStatus: string | null;
  secret?: string;
}

let t: TestApp;
let clock: ManualClock;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  clock = new ManualClock(new Date('2030-01-01T00:00:00.000Z'));
  t = await startApp({ clock, config: { webhookSecretKey: KEY_HEX, webhookAllowPrivateTargets: true } });
  tenant = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());

const call = (method: string, path: string, key: string, payload?: object, app: TestApp = t) =>
  api(app, key).send(method as Method, path, payload);

const create = async (body: object = {}, who: TestTenant = tenant) => {
  const res = await call('POST', '/webhooks', who.keys.commerce, {
    url: 'https://hooks.example.com/in',
    events: ['order.created'],
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as Webhook & { secret: string };
};

const read = async (id: string, who: TestTenant = tenant) => {
  const res = await call('GET', `/webhooks/${id}`, who.keys.read);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Webhook;
};

const storedRow = async (tenantId: string, id: string) => {
  const [row] = await t.deps.db
    .select()
    .from(webhookSubscriptions)
    .where(tenantWhere(webhookSubscriptions, tenantId, eq(webhookSubscriptions.id, id)));
  return row;
};

const auditEntries = async (action: string, who: TestTenant = tenant) =>
  (await call('GET', `/audit-logs?action=${action}`, who.keys.admin)).json().data as {
    action: string;
    resourceId: string;
    details: Record<string, unknown> | null;
  }[];

const insertDelivery = (tenantId: string, subscriptionId: string, values: Record<string, unknown> = {}) => {
  const now = clock.now();
  const eventId = randomUUID();
  return t.deps.db
    .insert(webhookDeliveries)
    .values({
      tenantId,
      subscriptionId,
      eventId,
      eventType: 'order.created',
      status: 'pending',
      attemptCount: 0,
      nextAttemptAt: now,
      lastAttemptAt: null,
      lastResponseStatus: null,
      createdAt: now,
      updatedAt: now,
      ...values,
    })
    .returning()
    .then((rows) => rows[0] as typeof webhookDeliveries.$inferSelect);
};

describe('webhook subscriptions: create and read', () => {
  it('201 with the secret once; get and list never show it; stats start empty', async () => {
    const res = await call('POST', '/webhooks', tenant.keys.commerce, {
      url: 'https://hooks.example.com/orders',
      events: ['order.created', 'order.updated'],
    });
    expect(res.statusCode, res.body).toBe(201);
    const { data, nextActions } = res.json();
    expect(data).toEqual({
      id: expect.stringMatching(UUID),
      url: 'https://hooks.example.com/orders',
      events: ['order.created', 'order.updated'],
      format: 'native',
      isActive: true,
      createdAt: clock.now().toISOString(),
      updatedAt: clock.now().toISOString(),
      lastDeliveryAt: null,
      recentFailureCount: 0,
      lastDeliveryStatus: null,
      secret: expect.stringMatching(SECRET),
    });
    expect(nextActions.map((a: { rel: string }) => a.rel)).toEqual([
      'self',
      'update',
      'delete',
      'rotateSecret',
      'deliveries',
      'test',
      'list',
    ]);
    const { secret, ...shown } = data;
    expect(await read(data.id)).toEqual(shown);
    const list = (await call('GET', '/webhooks', tenant.keys.read)).json().data as Webhook[];
    expect(list).toContainEqual(shown);
    expect(JSON.stringify(list)).not.toContain('whsec_');
    const audit = await auditEntries('webhook.create');
    expect(audit.find((e) => e.resourceId === data.id)?.details).toMatchObject({
      url: data.url,
      events: data.events,
    });
    expect(JSON.stringify(audit)).not.toContain(secret);
  });

  it('stores the secret sealed by the key ring: the column does not contain it and opens to it', async () => {
    const hook = await create();
    const row = await storedRow(tenant.tenantId, hook.id);
    const ring = t.deps.keyRing;
    expect(row?.secretCiphertext).toMatch(/^ek1\.test\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(row?.secretCiphertext).not.toContain(hook.secret);
    expect(row?.secretCiphertext).not.toContain(hook.secret.slice(6));
    expect(ring.open('webhook_secret', row?.secretCiphertext ?? '')).toBe(hook.secret);
    // Bound to its purpose: the same ciphertext does not open as another kind of secret.
    expect(() => ring.open('provider_secret', row?.secretCiphertext ?? '')).toThrow();
  });

  it('lists all of the tenant’s, active and disabled, newest first, and none of another tenant’s', async () => {
    const fresh = await createTestTenant(t.deps);
    const a = await create({}, fresh);
    clock.advance(1000);
    const b = await create({ events: ['*'] }, fresh);
    clock.advance(1000);
    expect(
      (await call('PATCH', `/webhooks/${a.id}`, fresh.keys.commerce, { isActive: false })).statusCode,
    ).toBe(200);
    const list = (await call('GET', '/webhooks', fresh.keys.read)).json().data as Webhook[];
    expect(list.map((w) => [w.id, w.isActive])).toEqual([
      [b.id, true],
      [a.id, false],
    ]);
  });

  it('event-types lists the registry with descriptions, equal to the manifest’s', async () => {
    const res = await call('GET', '/webhooks/event-types', tenant.keys.read);
    expect(res.statusCode, res.body).toBe(200);
    const types = res.json().data as { type: string; description: string }[];
    const manifest = await call('GET', '/manifest', tenant.keys.read);
    expect(types.map((e) => e.type)).toEqual(manifest.json().data.capabilities.eventTypes);
    expect(types.map((e) => e.type)).toEqual(EVENT_TYPE_NAMES);
    for (const e of types) expect(e.description.length, e.type).toBeGreaterThan(5);
  });
});

describe('webhook subscriptions: validation', () => {
  const expect400 = async (body: object, field: string, rule: string, text?: string) => {
    const res = await call('POST', '/webhooks', tenant.keys.commerce, body);
    expect(res.statusCode, res.body).toBe(400);
    const err = errorBody(res);
    expect(err.code).toBe('validation_failed');
    expect(err.details, res.body).toContainEqual(expect.objectContaining({ field, rule }));
    if (text) expect(err.error).toContain(text);
  };
  const ok = { url: 'https://hooks.example.com/x', events: ['order.created'] };

  it('refuses non-HTTPS, malformed and credentialed URLs, naming url', async () => {
    await expect400({ ...ok, url: 'http://hooks.example.com/x' }, 'url', 'https');
    await expect400({ ...ok, url: 'ftp://hooks.example.com/x' }, 'url', 'https');
    await expect400({ ...ok, url: 'not a url' }, 'url', 'format');
    await expect400({ ...ok, url: 'https://user:pw@hooks.example.com/x' }, 'url', 'credentials');
    await expect400({ ...ok, url: `https://hooks.example.com/${'x'.repeat(2048)}` }, 'url', 'maxLength');
    await expect400({ events: ['order.created'] }, 'url', 'required');
  });

  it('refuses missing, empty, duplicate and unknown events, naming the unknown ones by position', async () => {
    await expect400({ url: ok.url }, 'events', 'required');
    await expect400({ ...ok, events: [] }, 'events', 'minItems');
    await expect400({ ...ok, events: ['order.created', 'order.created'] }, 'events', 'uniqueItems');
    // Each unknown entry is named by its position; the document lists the known types (an enum).
    await expect400({ ...ok, events: ['order.created', 'order.shipped', 'nope'] }, 'events.1', 'enum');
    await expect400({ ...ok, events: ['order.created', 'order.shipped', 'nope'] }, 'events.2', 'enum');
    const many = Array.from({ length: 51 }, (_, i) => `x${i}`);
    await expect400({ ...ok, events: many }, 'events', 'maxItems');
    await expect400({ ...ok, secret: 'whsec_mine' }, 'secret', 'additionalProperties');
  });

  it('accepts `*` and every registered type', async () => {
    expect((await create({ events: ['*'] })).events).toEqual(['*']);
    expect((await create({ events: EVENT_TYPE_NAMES })).events).toEqual(EVENT_TYPE_NAMES);
  });

  it('refuses private targets unless WEBHOOK_ALLOW_PRIVATE_TARGETS', async () => {
    const strict = await startApp({
      config: { webhookSecretKey: KEY_HEX, webhookAllowPrivateTargets: false },
    });
    try {
      const who = await createTestTenant(strict.deps);
      for (const url of [
        'https://127.0.0.1/hook',
        'https://10.0.0.1/x',
        'https://[::1]/x',
        'https://169.254.169.254/latest',
        'https://[::ffff:192.168.1.1]/x',
        'https://100.64.0.1/x',
        'https://0x7f000001/x',
        'https://[::127.0.0.1]/',
        'https://[::ffff:0:127.0.0.1]/',
      ]) {
        const res = await call('POST', '/webhooks', who.keys.commerce, { url, events: ['*'] }, strict);
        expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
        expect(errorBody(res).details).toMatchObject([
          expect.objectContaining({ field: 'url', rule: 'public_target' }),
        ]);
      }
      // A public literal needs no DNS and is accepted; PATCH re-checks a new URL.
      const res = await call(
        'POST',
        '/webhooks',
        who.keys.commerce,
        { url: 'https://93.184.215.14/hook', events: ['*'] },
        strict,
      );
      expect(res.statusCode, res.body).toBe(201);
      const patch = await call(
        'PATCH',
        `/webhooks/${res.json().data.id}`,
        who.keys.commerce,
        { url: 'https://192.168.0.10/x' },
        strict,
      );
      expect(patch.statusCode).toBe(400);
      expect(errorBody(patch).details?.[0]).toMatchObject({ field: 'url', rule: 'public_target' });
      const list = (await call('GET', '/webhooks', who.keys.read, undefined, strict)).json()
        .data as Webhook[];
      expect(list.map((w) => w.url)).toEqual(['https://93.184.215.14/hook']);
    } finally {
      await strict.app.close();
    }
    // This app allows them.
    expect((await create({ url: 'https://127.0.0.1/hook' })).url).toBe('https://127.0.0.1/hook');
    expect((await create({ url: 'https://10.0.0.1/x' })).url).toBe('https://10.0.0.1/x');
  });

  it('classifies addresses: non-public ranges blocked, public ones not', () => {
    for (const a of [
      '0.0.0.0',
      '172.16.5.4',
      '192.168.1.1',
      'fe80::1',
      'fd12::1',
      'ff02::1',
      '::',
      '224.0.0.5',
      // IPv4 inside IPv6 forms that reach loopback (found by the adversarial run).
      '::127.0.0.1',
      '::ffff:0:127.0.0.1',
      '::ffff:127.0.0.1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::1',
      '100.64.0.1',
      '169.254.169.254',
      '198.18.0.1',
      '192.0.2.1',
      '255.255.255.255',
      'not an address',
    ])
      expect(isNonPublicAddress(a), a).toBe(true);
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])
      expect(isNonPublicAddress(a), a).toBe(false);
  });
});

describe('webhook subscriptions: update and delete', () => {
  it('PATCH changes the given fields, reads back, and audits a diff of only those', async () => {
    const hook = await create({ events: ['order.created'] });
    clock.advance(5000);
    const res = await call('PATCH', `/webhooks/${hook.id}`, tenant.keys.commerce, {
      events: ['order.created', 'invoice.paid'],
      url: 'https://hooks.example.com/v2',
    });
    expect(res.statusCode, res.body).toBe(200);
    const updated = res.json().data as Webhook;
    expect(updated).toMatchObject({
      url: 'https://hooks.example.com/v2',
      events: ['order.created', 'invoice.paid'],
      isActive: true,
      createdAt: hook.createdAt,
      updatedAt: clock.now().toISOString(),
    });
    expect(updated).not.toHaveProperty('secret');
    expect(await read(hook.id)).toEqual(updated);
    const entry = (await auditEntries('webhook.update')).find((e) => e.resourceId === hook.id);
    expect(entry?.details).toMatchObject({
      before: { url: 'https://hooks.example.com/in', events: ['order.created'] },
      after: { url: 'https://hooks.example.com/v2', events: ['order.created', 'invoice.paid'] },
    });
    expect(JSON.stringify(entry)).not.toContain('whsec_');
    // The secret is untouched by PATCH.
    expect(
      await activeSigningSecrets(t.deps.db, tenant.tenantId, hook.id, clock.now(), t.deps.keyRing),
    ).toEqual([hook.secret]);
  });

  it('isActive false keeps the subscription, disabled', async () => {
    const hook = await create();
    const res = await call('PATCH', `/webhooks/${hook.id}`, tenant.keys.commerce, { isActive: false });
    expect(res.statusCode, res.body).toBe(200);
    expect(await read(hook.id)).toMatchObject({ isActive: false, url: hook.url, events: hook.events });
    const entry = (await auditEntries('webhook.update')).find((e) => e.resourceId === hook.id);
    expect(entry?.details).toMatchObject({ before: { isActive: true }, after: { isActive: false } });
  });

  it('PATCH validates: empty body, unknown event, http url', async () => {
    const hook = await create();
    for (const [body, field, rule] of [
      [{}, undefined, 'minProperties'],
      [{ events: ['nope'] }, 'events.0', 'enum'],
      [{ url: 'http://hooks.example.com' }, 'url', 'https'],
      [{ isActive: 'no' }, 'isActive', 'type'],
    ] as const) {
      const res = await call('PATCH', `/webhooks/${hook.id}`, tenant.keys.commerce, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(errorBody(res).details?.[0], res.body).toMatchObject({ ...(field ? { field } : {}), rule });
    }
    expect(await read(hook.id)).toMatchObject({ url: hook.url, events: hook.events, isActive: true });
  });

  it('DELETE is 204, then 404, and removes its deliveries and attempts', async () => {
    const hook = await create();
    const keep = await create();
    const delivery = await insertDelivery(tenant.tenantId, hook.id);
    await t.deps.db.insert(webhookAttempts).values({
      tenantId: tenant.tenantId,
      subscriptionId: hook.id,
      eventId: delivery.eventId,
      attempt: 1,
      attemptedAt: clock.now(),
      responseStatus: 500,
      durationMs: 12,
      responseBody: 'oops',
      error: null,
    });
    const kept = await insertDelivery(tenant.tenantId, keep.id);

    const res = await call('DELETE', `/webhooks/${hook.id}`, tenant.keys.commerce);
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expect((await call('GET', `/webhooks/${hook.id}`, tenant.keys.read)).statusCode).toBe(404);
    expect((await call('DELETE', `/webhooks/${hook.id}`, tenant.keys.commerce)).statusCode).toBe(404);
    const deliveries = await t.deps.db
      .select()
      .from(webhookDeliveries)
      .where(tenantWhere(webhookDeliveries, tenant.tenantId, eq(webhookDeliveries.subscriptionId, hook.id)));
    expect(deliveries).toEqual([]);
    const attempts = await t.deps.db
      .select()
      .from(webhookAttempts)
      .where(tenantWhere(webhookAttempts, tenant.tenantId, eq(webhookAttempts.subscriptionId, hook.id)));
    expect(attempts).toEqual([]);
    // Another subscription's deliveries stay.
    const others = await t.deps.db
      .select()
      .from(webhookDeliveries)
      .where(tenantWhere(webhookDeliveries, tenant.tenantId, eq(webhookDeliveries.eventId, kept.eventId)));
    expect(others).toHaveLength(1);
    expect((await auditEntries('webhook.delete')).map((e) => e.resourceId)).toContain(hook.id);
  });
});

describe('webhook subscriptions: secret rotation', () => {
  it('returns a new secret; both sign for 24 h, then only the new one', async () => {
    const hook = await create();
    const res = await call('POST', `/webhooks/${hook.id}/rotate-secret`, tenant.keys.commerce);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    const expiresAt = new Date(clock.now().getTime() + 24 * HOUR).toISOString();
    expect(data).toEqual({
      id: hook.id,
      secret: expect.stringMatching(SECRET),
      overlapHours: 24,
      previousSecretExpiresAt: expiresAt,
    });
    expect(data.secret).not.toBe(hook.secret);
    const row = await storedRow(tenant.tenantId, hook.id);
    expect(row?.previousSecretExpiresAt?.toISOString()).toBe(expiresAt);
    expect(row?.previousSecretCiphertext).not.toContain(hook.secret.slice(6));

    const secretsAt = (at: Date) =>
      activeSigningSecrets(t.deps.db, tenant.tenantId, hook.id, at, t.deps.keyRing);
    expect(await secretsAt(clock.now())).toEqual([data.secret, hook.secret]);
    expect(await secretsAt(new Date(clock.now().getTime() + 24 * HOUR - 1))).toEqual([
      data.secret,
      hook.secret,
    ]);
    clock.advance(24 * HOUR);
    expect(await secretsAt(clock.now())).toEqual([data.secret]);
    // Another tenant's id gives nothing.
    expect(
      await activeSigningSecrets(t.deps.db, other.tenantId, hook.id, clock.now(), t.deps.keyRing),
    ).toEqual([]);

    const audit = (await auditEntries('webhook.rotate_secret')).find((e) => e.resourceId === hook.id);
    expect(audit?.details).toMatchObject({ previousSecretExpiresAt: expiresAt });
    expect(JSON.stringify(audit)).not.toContain('whsec_');
    expect(await read(hook.id)).not.toHaveProperty('secret');
  });
});

describe('webhook subscriptions: tenancy and scopes', () => {
  it('another tenant’s subscription is 404 on get, patch, delete and rotate', async () => {
    const hook = await create({}, other);
    const key = tenant.keys.admin;
    expect((await call('GET', `/webhooks/${hook.id}`, key)).statusCode).toBe(404);
    expect((await call('PATCH', `/webhooks/${hook.id}`, key, { isActive: false })).statusCode).toBe(404);
    expect((await call('DELETE', `/webhooks/${hook.id}`, key)).statusCode).toBe(404);
    expect((await call('POST', `/webhooks/${hook.id}/rotate-secret`, key)).statusCode).toBe(404);
    expect((await call('GET', `/webhooks/${UNKNOWN_ID}`, key)).statusCode).toBe(404);
    const list = (await call('GET', '/webhooks', key)).json().data as Webhook[];
    expect(list.map((w) => w.id)).not.toContain(hook.id);
    // Untouched.
    expect(await read(hook.id, other)).toMatchObject({ isActive: true, url: hook.url });
    expect(
      await activeSigningSecrets(t.deps.db, other.tenantId, hook.id, clock.now(), t.deps.keyRing),
    ).toEqual([hook.secret]);
  });

  it('a read key may read but not write (403); commerce and admin keys may write', async () => {
    const hook = await create();
    const readKey = tenant.keys.read;
    for (const res of [
      await call('POST', '/webhooks', readKey, { url: 'https://hooks.example.com/x', events: ['*'] }),
      await call('PATCH', `/webhooks/${hook.id}`, readKey, { isActive: false }),
      await call('DELETE', `/webhooks/${hook.id}`, readKey),
      await call('POST', `/webhooks/${hook.id}/rotate-secret`, readKey),
    ]) {
      expect(res.statusCode, res.body).toBe(403);
      expect(errorBody(res).code).toBe('forbidden');
    }
    expect((await call('GET', '/webhooks', readKey)).statusCode).toBe(200);
    expect((await call('GET', '/webhooks/event-types', readKey)).statusCode).toBe(200);
    const byAdmin = await call('POST', '/webhooks', tenant.keys.admin, {
      url: 'https://hooks.example.com/a',
      events: ['*'],
    });
    expect(byAdmin.statusCode).toBe(201);
    expect(await read(hook.id)).toMatchObject({ isActive: true });
  });
});

describe('webhook subscriptions: delivery stats', () => {
  it('reflect the latest attempted delivery and failed attempts of the last 24 h', async () => {
    const hook = await create();
    const start = clock.now();
    // An old failure (outside 24 h), a recent failed attempt, a success, and a never-attempted delivery.
    const old = await insertDelivery(tenant.tenantId, hook.id, {
      status: 'dead_letter',
      attemptCount: 5,
      lastAttemptAt: new Date(start.getTime() - 30 * HOUR),
      lastResponseStatus: 500,
    });
    const recent = await insertDelivery(tenant.tenantId, hook.id, {
      status: 'failed',
      attemptCount: 2,
      lastAttemptAt: new Date(start.getTime() - HOUR),
      lastResponseStatus: 503,
    });
    await insertDelivery(tenant.tenantId, hook.id);
    const attempt = (eventId: string, n: number, at: Date, status: number | null, error: string | null) =>
      t.deps.db.insert(webhookAttempts).values({
        tenantId: tenant.tenantId,
        subscriptionId: hook.id,
        eventId,
        attempt: n,
        attemptedAt: at,
        responseStatus: status,
        durationMs: 5,
        responseBody: null,
        error,
      });
    await attempt(old.eventId, 1, new Date(start.getTime() - 30 * HOUR), 500, null);
    await attempt(recent.eventId, 1, new Date(start.getTime() - 2 * HOUR), null, 'ECONNREFUSED');
    await attempt(recent.eventId, 2, new Date(start.getTime() - HOUR), 503, null);
    await attempt(recent.eventId, 3, new Date(start.getTime() - HOUR / 2), 204, null);

    expect(await read(hook.id)).toMatchObject({
      lastDeliveryAt: new Date(start.getTime() - HOUR).toISOString(),
      lastDeliveryStatus: 'failed',
      recentFailureCount: 2,
    });
    const listed = ((await call('GET', '/webhooks', tenant.keys.read)).json().data as Webhook[]).find(
      (w) => w.id === hook.id,
    );
    expect(listed).toMatchObject({ lastDeliveryStatus: 'failed', recentFailureCount: 2 });
    // A day later the recent failures have aged out.
    clock.advance(24 * HOUR);
    expect((await read(hook.id)).recentFailureCount).toBe(0);
    expect((await read(hook.id)).lastDeliveryStatus).toBe('failed');
    expect(ISO.test((await read(hook.id)).lastDeliveryAt ?? '')).toBe(true);
  });
});

describe('webhook subscriptions: configuration', () => {
  it('reads WEBHOOK_SECRET_KEY (64 hex) and WEBHOOK_ALLOW_PRIVATE_TARGETS, naming a bad one', () => {
    expect(loadConfig({})).toMatchObject({
      webhookSecretKey: undefined,
      webhookAllowPrivateTargets: false,
    });
    expect(
      loadConfig({ WEBHOOK_SECRET_KEY: KEY_HEX.toUpperCase(), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }),
    ).toMatchObject({ webhookSecretKey: KEY_HEX, webhookAllowPrivateTargets: true });
    for (const bad of ['abc', `${KEY_HEX}00`, 'z'.repeat(64)]) {
      expect(() => loadConfig({ WEBHOOK_SECRET_KEY: bad })).toThrow(
        expect.objectContaining({ name: 'ConfigError', variable: 'WEBHOOK_SECRET_KEY' }),
      );
    }
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(
      expect.objectContaining({ variable: 'WEBHOOK_ALLOW_PRIVATE_TARGETS' }),
    );
  });
});
