import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createScratchDatabase,
  createTestTenant,
  startApp,
  type TestApp,
  usingPostgres,
} from '../harness.js';
import { type Receiver, startReceiver, TEST_CA_FILE } from '../support/webhook-receiver.js';
import {
  type Child,
  freePort,
  kill,
  killAll,
  spawnChild,
  waitForOutput,
  waitReady,
} from './support/child-server.js';

// Killing a standalone worker (src/worker.ts, PostgreSQL): an API process without a worker
// (WEBHOOK_WORKER=false) takes writes while a worker process sends their webhook deliveries to a
// local HTTPS receiver. The worker is SIGKILLed mid-delivery; the API keeps accepting writes while
// no worker runs (and nothing is sent meanwhile); the worker is restarted. Then:
// - every event is delivered (answered 2xx by the receiver) at least once;
// - the backlog queued while no worker ran is sent right after the restart;
// - a delivery the killed worker held is sent again only once its lease has run out (60 s,
//   DEFAULT_LEASE_MS in src/modules/webhooks/delivery/worker.ts, not configurable), never while it was live;
// - no delivery row is left leased or unfinished, and there is one per event.
// Two kills: `hanging` (from a random point on, the receiver holds every request open, so
// deliveries are certainly in flight at the kill) and `streaming` (the receiver answers normally;
// the kill lands while it is answering a random delivery, whose 2xx the worker never reads).
// Full run only: waiting out the lease makes each kill take over a minute, too long for the smoke.
// A scratch database: the worker serves every tenant of the database it opens.

const SMOKE = process.env.RELIABILITY_SMOKE === '1';
const LEASE_MS = 60_000;
/** A resend earlier than this after the first receipt would mean a live lease was ignored. */
const MIN_RESEND_GAP_MS = LEASE_MS - 15_000;
const EVENTS = 300;
const DURING_DOWNTIME = 50;
const CLIENTS = 4;
const READY = 'webhook delivery worker ready';

async function rows<T>(t: TestApp, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await t.deps.db.execute(query)) as unknown as { rows: T[] }).rows;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(SMOKE || !usingPostgres)('killing a standalone worker mid-delivery (PostgreSQL)', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let t: TestApp;
  const receivers: Receiver[] = [];
  const secret = randomBytes(32).toString('hex');

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    t = await startApp({ database: scratch.database });
  });
  afterAll(async () => {
    await killAll();
    await Promise.all(receivers.map((r) => r.close()));
    await t?.app.close();
    await scratch?.drop();
  });

  const env = () => ({
    DATABASE_URL: scratch.url,
    WEBHOOK_SECRET_KEY: secret,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_CA_FILE: TEST_CA_FILE,
  });
  const startWorker = async () => {
    // The worker listens on no port; LOG_LEVEL=info prints its ready line.
    const worker = spawnChild(await freePort(), { ...env(), LOG_LEVEL: 'info' }, 'src/worker.ts');
    await waitForOutput(worker, READY);
    return worker;
  };

  for (const mode of ['hanging', 'streaming'] as const) {
    it(`${mode}: every event delivered after the restart, leased ones only after the lease, none left leased`, async () => {
      const started = Date.now();
      const api = spawnChild(await freePort(), { ...env(), WEBHOOK_WORKER: 'false' });
      let worker: Child = await startWorker();
      await waitReady(api);
      const tenant = await createTestTenant(t.deps);
      const base = `http://127.0.0.1:${api.port}/api/v1`;
      const send = (method: string, path: string, body: unknown) =>
        fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${tenant.keys.commerce}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });

      // The receiver: every receipt by event id and time; 2xx answers counted apart.
      const receipts = new Map<string, number[]>();
      const answered = new Set<string>();
      const held = new Map<string, number>();
      let answeredCount = 0;
      let released = false;
      let killedOn: string | undefined;
      let trigger = (_id: string) => {};
      const killed = new Promise<void>((resolve) => {
        trigger = (id) => {
          if (killedOn) return;
          killedOn = id;
          worker.child.kill('SIGKILL');
          resolve();
        };
      });
      // Where the kill lands: after this many 2xx answers.
      const threshold = 20 + Math.floor(Math.random() * (mode === 'hanging' ? 100 : EVENTS - 80));
      const receiver = await startReceiver((_n, receipt) => {
        const id = String(receipt.headers['webhook-id']);
        receipts.set(id, [...(receipts.get(id) ?? []), receipt.receivedAt]);
        if (!released && mode === 'hanging' && answeredCount >= threshold) {
          // Held open: the worker waits for an answer (its sender gives up after 10 s; the kill
          // comes long before). Once a few are held, the worker dies with them in flight.
          held.set(id, receipt.receivedAt);
          if (held.size >= 4) trigger(id);
          return 'hang';
        }
        if (!released && mode === 'streaming' && answeredCount + 1 >= threshold) {
          // Killed while this delivery's 2xx is being written: the worker never reads it, so it
          // cannot record it, and must send it again after the lease.
          trigger(id);
        }
        answered.add(id);
        answeredCount++;
        return { status: 200 };
      });
      receivers.push(receiver);
      const hookRes = await send('POST', '/webhooks', { url: receiver.url, events: ['account.created'] });
      expect(hookRes.status).toBe(201);

      const created: string[] = [];
      const createAccounts = async (count: number, prefix: string) => {
        let next = 0;
        await Promise.all(
          Array.from({ length: CLIENTS }, async () => {
            while (next < count) {
              const i = next++;
              const res = await send('POST', '/accounts', { name: `${prefix} ${i}` });
              if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
              created.push(((await res.json()) as { data: { id: string } }).data.id);
            }
          }),
        );
      };

      // The load; the kill comes from the receiver, mid-delivery.
      const load = createAccounts(EVENTS, 'Acme');
      const inTime = await Promise.race([killed.then(() => true), sleep(60_000).then(() => false)]);
      if (!inTime)
        throw new Error(`no kill: ${answeredCount} answered, ${held.size} held (threshold ${threshold})`);
      expect((await worker.exited).signal).toBe('SIGKILL');
      const deadAt = Date.now();
      released = true;
      const answeredAtKill = answeredCount;
      const leasedAtKill = (
        await rows<{ n: number }>(
          t,
          sql`select count(*)::int as n from webhook_deliveries
              where tenant_id = ${tenant.tenantId} and lease_token is not null`,
        )
      )[0]?.n as number;
      // Mid-delivery: what the worker was sending is still leased to it.
      expect(leasedAtKill).toBeGreaterThanOrEqual(mode === 'hanging' ? held.size : 1);
      const heldAtKill = [...held.keys()];

      // No worker: the API still takes writes (the rest of the load, and a backlog), and nothing is
      // sent (the API processes run no worker).
      await load;
      const backlogFrom = created.length;
      await createAccounts(DURING_DOWNTIME, 'Backlog');
      const backlog = created.slice(backlogFrom);
      await sleep(1_000);
      const sentWhileDown = [...receipts.values()].flat().filter((at) => at > deadAt + 200);
      expect(sentWhileDown).toEqual([]);

      worker = await startWorker();
      const restartedAt = Date.now();

      const eventRows = await rows<{ id: string; rid: string }>(
        t,
        sql`select id, payload->>'id' as rid from events
            where tenant_id = ${tenant.tenantId} and type = 'account.created'`,
      );
      expect(eventRows.map((e) => e.rid).sort()).toEqual([...created].sort());
      const eventIds = eventRows.map((e) => e.id);
      const backlogEvents = eventRows.filter((e) => backlog.includes(e.rid)).map((e) => e.id);
      expect(backlogEvents).toHaveLength(DURING_DOWNTIME);

      // The backlog goes out at once (it was never leased); then everything, the leased ones once
      // their lease has run out.
      const waitAnswered = async (ids: string[], ms: number) => {
        const deadline = Date.now() + ms;
        let missing = ids;
        while (Date.now() < deadline) {
          missing = ids.filter((id) => !answered.has(id));
          if (missing.length === 0) break;
          await sleep(250);
        }
        return missing;
      };
      expect(await waitAnswered(backlogEvents, 30_000)).toEqual([]);
      const backlogSeconds = (Date.now() - restartedAt) / 1000;
      expect(await waitAnswered(eventIds, LEASE_MS + 90_000)).toEqual([]);
      const allSeconds = (Date.now() - deadAt) / 1000;

      // No delivery left leased or unfinished: one per event, each succeeded with a 2xx recorded.
      let unfinished: unknown[] = [];
      for (let i = 0; i < 480; i++) {
        unfinished = await rows(
          t,
          sql`select event_id, status, lease_token, last_response_status from webhook_deliveries
              where tenant_id = ${tenant.tenantId}
                and (status <> 'succeeded' or lease_token is not null or last_response_status <> 200)`,
        );
        if (unfinished.length === 0) break;
        await sleep(250);
      }
      expect(unfinished).toEqual([]);
      const deliveries = await rows<{ event_id: string }>(
        t,
        sql`select event_id from webhook_deliveries where tenant_id = ${tenant.tenantId}`,
      );
      expect(deliveries.map((d) => d.event_id).sort()).toEqual([...eventIds].sort());

      // Sent again only after the lease: a second receipt never follows the first by less than
      // the lease (minus the time between claim and send). The held ones and the one killed
      // while answered were sent again (the worker that held them never recorded them).
      const resent = [...receipts.entries()].filter(([, times]) => times.length > 1);
      const gaps = resent.map(([id, times]) => ({ id, gapMs: (times[1] as number) - (times[0] as number) }));
      expect(gaps.filter((g) => g.gapMs < MIN_RESEND_GAP_MS)).toEqual([]);
      const resentIds = new Set(resent.map(([id]) => id));
      expect(heldAtKill.filter((id) => !resentIds.has(id))).toEqual([]);
      if (mode === 'streaming') expect(resentIds.has(killedOn as string)).toBe(true);

      console.log(
        `worker kill (${mode}): SIGKILL after ${answeredAtKill} answered deliveries (threshold ${threshold}), ` +
          `${heldAtKill.length} held open, ${leasedAtKill} leased at the kill; backlog of ${DURING_DOWNTIME} sent ` +
          `${backlogSeconds.toFixed(1)} s after the restart; all ${eventIds.length} events answered ${allSeconds.toFixed(1)} s ` +
          `after the kill; ${resent.length} sent again, gaps ${Math.min(...gaps.map((g) => g.gapMs)) / 1000}-` +
          `${Math.max(...gaps.map((g) => g.gapMs)) / 1000} s; test ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );

      await kill(worker, 'SIGTERM');
      expect((await worker.exited).code).toBe(0);
      await kill(api, 'SIGTERM');
    }, 300_000);
  }
});
