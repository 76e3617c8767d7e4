// Issue 27, items 7 and 8: what one receiver answers, or how slowly, never holds back another
// tenant's deliveries. Real HTTPS receivers on localhost, the worker driven by the test clock.
import type { SQL } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createSender, DeliveryWorker, type Sender } from '../../src/modules/webhooks/index.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { waitFor } from '../support/wait.js';
import { type Receiver, startReceiver, TEST_CA_FILE } from '../support/webhook-receiver.js';

const logger = pino({ level: 'silent' });

/** Every string inside a Drizzle `sql` template: its text and its parameters. */
function stringsOf(query: unknown, depth = 0): string[] {
  if (typeof query === 'string') return [query];
  if (!query || typeof query !== 'object' || depth > 20) return [];
  if ('queryChunks' in query) return (query.queryChunks as unknown[]).flatMap((c) => stringsOf(c, depth + 1));
  if ('value' in query && Array.isArray(query.value)) return query.value.filter((v) => typeof v === 'string');
  return [];
}

interface Delivery {
  id: string;
  status: string;
  attemptCount: number;
}
interface Attempt {
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
}

let t: TestApp;
const clock = new ManualClock();
let sender: Sender;
const receivers: Receiver[] = [];

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, key: string, payload?: unknown) =>
  api(t, key).send(method, url, payload);

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

async function subscribe(tenant: TestTenant, url: string) {
  const res = await call('POST', '/webhooks', tenant.keys.commerce, { url, events: ['webhook.test'] });
  expect(res.statusCode).toBe(201);
  return res.json().data.id as string;
}

/** Queues `count` webhook.test deliveries to the webhook; returns their ids. */
async function queueTests(tenant: TestTenant, hookId: string, count = 1) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await call('POST', `/webhooks/${hookId}/test`, tenant.keys.commerce);
    expect(res.statusCode).toBe(202);
    ids.push(res.json().data.id);
  }
  return ids;
}

async function deliveryOf(tenant: TestTenant, hookId: string, id: string) {
  const res = await call('GET', `/webhooks/${hookId}/deliveries/${id}`, tenant.keys.read);
  expect(res.statusCode).toBe(200);
  return res.json().data as Delivery & { attempts: Attempt[] };
}

async function deliveriesOf(tenant: TestTenant, hookId: string) {
  const res = await call('GET', `/webhooks/${hookId}/deliveries?limit=100`, tenant.keys.read);
  expect(res.statusCode).toBe(200);
  return res.json().data as Delivery[];
}

/** `status/attemptCount` of each of the webhook's deliveries, sorted. */
const statesOf = async (tenant: TestTenant, hookId: string) =>
  (await deliveriesOf(tenant, hookId)).map((d) => `${d.status}/${d.attemptCount}`).sort();

const worker = (
  tenants: TestTenant[],
  options: { db?: TestApp['deps']['db']; sender?: Sender; concurrency?: number } & Partial<
    ConstructorParameters<typeof DeliveryWorker>[1]
  > = {},
) =>
  new DeliveryWorker(
    {
      db: options.db ?? t.deps.db,
      clock,
      logger,
      keyRing: t.deps.keyRing,
      sender: options.sender ?? sender,
    },
    {
      pollIntervalMs: 60_000,
      ...options,
      concurrency: options.concurrency ?? 8,
      tenantIds: tenants.map((x) => x.tenantId),
    },
  );

/**
 * The database, with attempt results held until `open()` (so every result lands in one batch
 * write), and refusing, as PostgreSQL refuses text it cannot store, any write whose parameters
 * hold `refuse`.
 */
function gatedDb(refuse?: string) {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const db = new Proxy(t.deps.db, {
    get(target, prop, receiver) {
      if (prop !== 'execute') return Reflect.get(target, prop, receiver);
      return async (query: SQL) => {
        const strings = stringsOf(query);
        if (strings.some((s) => s.includes('insert into webhook_attempts'))) {
          await opened;
          if (refuse && strings.some((s) => s.includes(refuse))) {
            throw Object.assign(new Error('character with byte sequence has no equivalent'), {
              code: '22021',
            });
          }
        }
        return target.execute(query);
      };
    },
  });
  return { db, open };
}

beforeAll(async () => {
  t = await startApp({ clock, config: { webhookAllowPrivateTargets: true, webhookCaFile: TEST_CA_FILE } });
  sender = createSender({ allowPrivateTargets: true, caFile: TEST_CA_FILE, timeoutMs: 60_000 });
});
afterAll(async () => {
  await sender.close();
  await t.app.close();
});
beforeEach(() => {
  clock.set(new Date());
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

describe('webhook delivery: whatever a receiver answers is recorded (item 7)', () => {
  it('a NUL byte, an emoji across character 1,024 and invalid UTF-8, written with another tenant’s result: all recorded, readable, nothing sent twice', async () => {
    const answers = {
      nul: Buffer.from('ok\u0000done', 'utf8'),
      emoji: Buffer.from(`${'a'.repeat(1_023)}\u{1F600} and more`, 'utf8'),
      bytes: Buffer.from([0x6f, 0x6b, 0xff, 0xc3]),
    };
    const a = await createTestTenant(t.deps);
    const b = await createTestTenant(t.deps);
    const hooks: Record<string, string> = {};
    const ids: Record<string, string> = {};
    for (const [kind, body] of Object.entries(answers)) {
      const r = await receiver(() => ({ status: 200, body }));
      hooks[kind] = await subscribe(a, r.url);
      [ids[kind]] = (await queueTests(a, String(hooks[kind]))) as [string];
    }
    const normal = await receiver();
    const bHook = await subscribe(b, normal.url);
    const [bId] = (await queueTests(b, bHook)) as [string];

    const gate = gatedDb();
    const w = worker([a, b], { db: gate.db });
    const drained = w.drain();
    // All four answered before any result is written: they are written together.
    await waitFor(() => receivers.every((r) => r.receipts.length === 1));
    gate.open();
    expect(await drained).toBe(4);

    const expected = { nul: 'ok\uFFFDdone', emoji: 'a'.repeat(1_023), bytes: 'ok\uFFFD\uFFFD' };
    for (const kind of Object.keys(answers) as (keyof typeof answers)[]) {
      const got = await deliveryOf(a, String(hooks[kind]), String(ids[kind]));
      expect(got, kind).toMatchObject({ status: 'succeeded', attemptCount: 1 });
      const [attempt] = got.attempts as [Attempt];
      expect(attempt.responseBody, kind).toBe(expected[kind]);
      // Valid text: survives a UTF-8 round trip unchanged (no lone surrogate), no NUL.
      const body = String(attempt.responseBody);
      expect(Buffer.from(body, 'utf8').toString('utf8'), kind).toBe(body);
      expect(body.includes('\u0000'), kind).toBe(false);
    }
    // The other tenant's delivery went in the same pass, once, and is recorded.
    expect(await deliveryOf(b, bHook, bId)).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    expect(normal.receipts).toHaveLength(1);
    clock.advance(120_000);
    expect(await worker([a, b]).drain()).toBe(0);
    expect(receivers.map((r) => r.receipts.length)).toEqual([1, 1, 1, 1]);
  });

  it('a result the database refuses is recorded as a failed attempt with an ASCII excerpt; the rest of its batch is written', async () => {
    const a = await createTestTenant(t.deps);
    const b = await createTestTenant(t.deps);
    const refused = await receiver(() => ({ status: 200, body: 'snow \u2603 man' }));
    const normal = await receiver();
    const aHook = await subscribe(a, refused.url);
    const bHook = await subscribe(b, normal.url);
    const [aId] = (await queueTests(a, aHook)) as [string];
    const [bId] = (await queueTests(b, bHook)) as [string];

    const gate = gatedDb('\u2603');
    const w = worker([a, b], { db: gate.db });
    const drained = w.drain();
    await waitFor(() => refused.receipts.length === 1 && normal.receipts.length === 1);
    gate.open();
    // Returns: the refused row is not retried forever.
    expect(await drained).toBe(2);

    expect(await deliveryOf(b, bHook, bId)).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    const got = await deliveryOf(a, aHook, aId);
    expect(got).toMatchObject({
      status: 'failed',
      attemptCount: 1,
      nextAttemptAt: new Date(clock.now().getTime() + 2_000).toISOString(),
    });
    expect(got.attempts[0]).toMatchObject({
      responseStatus: 200,
      responseBody: 'snow ? man',
      error: "the attempt's result could not be recorded (22021); counted as a failed attempt",
    });
  });
});

describe('webhook delivery: slots are shared fairly (item 8)', () => {
  it('a tenant whose receiver hangs holds only its share: another tenant’s delivery is sent while the hanging sends still hold theirs', async () => {
    const a = await createTestTenant(t.deps);
    const b = await createTestTenant(t.deps);
    const hanging = await receiver(() => 'hang');
    const normal = await receiver();
    const aHook = await subscribe(a, hanging.url);
    await queueTests(a, aHook, 30);
    const bHook = await subscribe(b, normal.url);

    const w = worker([a, b], {
      concurrency: 8,
      fairShare: { tenantConcurrency: 4, receiverConcurrency: 3 },
    });
    const unsubscribe = t.deps.deliveries.subscribe((queuedBy) => w.wake(queuedBy));
    w.start();
    w.wake();
    try {
      await waitFor(() => hanging.hangingNow === 3);
      expect(w.sendsUnderWay(a.tenantId)).toBe(3);
      // Queued after the hanging tenant's 30: sent while its three sends still hang.
      const [bId] = (await queueTests(b, bHook)) as [string];
      await waitFor(() => normal.receipts.length === 1);
      expect(hanging.hangingNow).toBe(3);
      expect(hanging.receipts).toHaveLength(3);
      expect(w.sendsUnderWay(a.tenantId)).toBe(3);
      await waitFor(() => w.sendsUnderWay() === 3);
      // The slot frees when the request ends; the result is written after, in the background.
      await waitFor(async () => (await deliveryOf(b, bHook, bId)).attemptCount > 0);
      expect(await deliveryOf(b, bHook, bId)).toMatchObject({ status: 'succeeded', attemptCount: 1 });
      // The hanging tenant's other deliveries wait in the queue, not in the slots.
      const queued = await deliveriesOf(a, aHook);
      expect(queued.filter((d) => d.status === 'pending')).toHaveLength(30);
    } finally {
      unsubscribe();
      await hanging.close(); // the hanging sends fail at once, so the worker can stop
      await w.stop();
    }
  });

  it('tenants take turns for free slots: each tenant’s backlog is sent within its share, interleaved', async () => {
    const a = await createTestTenant(t.deps);
    const b = await createTestTenant(t.deps);
    const shared = await receiver();
    await queueTests(a, await subscribe(a, shared.url), 12);
    await queueTests(b, await subscribe(b, `${shared.url}?b`), 12);
    const w = worker([a, b], { concurrency: 4, fairShare: { tenantConcurrency: 2 } });
    expect(await w.drain()).toBe(24);
    const order = shared.receipts.map((r) => (JSON.parse(r.body).tenantId === a.tenantId ? 'a' : 'b'));
    // B's backlog was queued after all of A's: still, every pass sends two of each.
    for (let pass = 0; pass < 6; pass++) {
      expect(order.slice(pass * 4, pass * 4 + 4).sort(), `pass ${pass}`).toEqual(['a', 'a', 'b', 'b']);
    }
  });

  it('a receiver that keeps timing out is backed off: its deliveries wait, another tenant’s do not; it is probed, then served again', async () => {
    const quick = createSender({ allowPrivateTargets: true, caFile: TEST_CA_FILE, timeoutMs: 500 });
    try {
      const a = await createTestTenant(t.deps);
      const b = await createTestTenant(t.deps);
      const hanging = await receiver(() => 'hang');
      const normal = await receiver();
      const aHook = await subscribe(a, hanging.url);
      await queueTests(a, aHook, 10);
      const bHook = await subscribe(b, normal.url);
      const fairShare = { receiverConcurrency: 2, backoffAfterTimeouts: 4, backoffMs: 30_000 };
      // Short attempts to the hanging receiver only, while it hangs: the machine's load never
      // times out an answering one.
      let hangs = true;
      const routed: Sender = {
        send: (url, ...rest) => (hangs && url === hanging.url ? quick : sender).send(url, ...rest),
        close: async () => {},
      };
      const w = worker([a, b], { sender: routed, fairShare });

      // One claim's share (2 sending, 2 waiting) times out: backed off 30 s, nothing more of it is sent.
      expect(await w.drain()).toBe(4);
      expect(w.backedOffReceivers()).toEqual([hanging.url]);
      await queueTests(b, bHook);
      expect(await w.drain()).toBe(1);
      expect(normal.receipts).toHaveLength(1);
      expect(await statesOf(a, aHook)).toEqual([...Array(4).fill('failed/1'), ...Array(6).fill('pending/0')]);

      // Backoff over: probed with two (twice the probe limit of 1); both time out, and each
      // further timeout doubles the wait (60 s, then 120 s).
      clock.advance(30_000);
      expect(await w.drain()).toBe(2);
      clock.advance(119_000);
      expect(await w.drain()).toBe(0);
      expect(w.backedOffReceivers()).toEqual([hanging.url]);
      const attempts = (await statesOf(a, aHook)).map((x) => Number(x.split('/')[1]));
      expect(attempts.reduce((x, y) => x + y)).toBe(6);

      // It answers again: served in full.
      hanging.setResponder(() => ({ status: 200 }));
      hangs = false;
      clock.advance(1_000);
      expect(await w.drain()).toBe(10);
      expect(w.backedOffReceivers()).toEqual([]);
      expect((await statesOf(a, aHook)).every((x) => x.startsWith('succeeded/'))).toBe(true);
    } finally {
      await quick.close();
    }
  });

  it('deleting or disabling a webhook stops its sends under way at the next check, not at their timeout', async () => {
    const a = await createTestTenant(t.deps);
    const hanging = await receiver(() => 'hang');
    const deleted = await subscribe(a, hanging.url);
    const disabled = await subscribe(a, `${hanging.url}?disabled`);
    await queueTests(a, deleted, 3);
    const [disabledId] = (await queueTests(a, disabled, 1)) as [string];
    const w = worker([a], { cancelCheckMs: 0 });
    w.start();
    w.wake();
    try {
      await waitFor(() => hanging.hangingNow === 4);
      expect((await call('DELETE', `/webhooks/${deleted}`, a.keys.commerce)).statusCode).toBe(204);
      expect(
        (await call('PATCH', `/webhooks/${disabled}`, a.keys.commerce, { isActive: false })).statusCode,
      ).toBe(200);
      w.wake();
      await waitFor(() => w.sendsUnderWay() === 0 && hanging.hangingNow === 0);
    } finally {
      await w.stop();
    }
    // The disabled one's attempt is recorded as failed; it is sent again once re-enabled.
    const got = await deliveryOf(a, disabled, disabledId);
    expect(got).toMatchObject({ status: 'failed', attemptCount: 1 });
    expect(got.attempts[0]?.error).toBe('cancelled: webhook deleted or disabled');
    expect((await call('GET', `/webhooks/${deleted}/deliveries`, a.keys.read)).statusCode).toBe(404);
  });
});
