import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultController, withFaults } from '../../src/billing/index.js';
import type { Clock } from '../../src/clock.js';
import { startApp, type TestApp, usingPostgres } from '../harness.js';
import { FAULTS, type Fault, MoneyWorld } from '../support/money-world.js';

// "One write path", model-based: random sequences of the operations that move money across the
// billing boundary (pay an invoice, complete, provider success and failure events, void, create,
// change and cancel subscriptions (giving back credit or a refund), refunds, credit grants and
// parallel credit applications, billing-linked orders, retries with the same key and body or
// another body, one key sent with three bodies at once, and races of complete against a provider failure), each with a fault on its
// billing call (none; before the call reaches the system; after it took effect, as a timeout;
// slow). After every sequence and one reconciler pass, the two systems must agree
// (MoneyWorld.problems). PostgreSQL only: the races need real concurrency.
// MONEY_RUNS / MONEY_SEED reproduce or widen a run; a failure's seed is kept in REGRESSIONS.

const RUNS = Number(process.env.MONEY_RUNS ?? 12);
const SEED = process.env.MONEY_SEED ? Number(process.env.MONEY_SEED) : undefined;
/**
 * Runs that once failed (seed and fast-check path), replayed every time:
 * - a retry failing before the billing call hid the change the first attempt had applied
 *   (shrunk: quantity(0,1,after), retry(same body,before), void): local x2, billing x1.
 */
const REGRESSIONS: { seed: number; path: string }[] = [{ seed: -1031540481, path: '54' }];

type Model = { steps: number };
type Cmd = fc.AsyncCommand<Model, MoneyWorld>;

const pick = <T>(list: readonly T[], n: number): T | undefined =>
  list.length ? list[n % list.length] : undefined;
const newKey = () => `k-${Math.random().toString(36).slice(2)}`;

class Command implements Cmd {
  constructor(
    readonly label: string,
    readonly go: (w: MoneyWorld) => Promise<void>,
  ) {}
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    await this.go(w);
  }
  toString = () => this.label;
}

/** Real time plus jumps the commands make (to an expiry boundary); time flows as it does in production. */
class JumpingClock implements Clock {
  private offset = 0;
  now = () => new Date(Date.now() + this.offset);
  set(at: Date) {
    this.offset = at.getTime() - Date.now();
  }
}
const clock = new JumpingClock();

const fault = fc.constantFrom<Fault>(...FAULTS);
const n = fc.nat(1000);

const commands = [
  fc.tuple(n, fault).map(
    ([amount, f]) =>
      new Command(`issue+pay(${amount},${f})`, async (w) => {
        const issued = await w.send(
          'POST',
          `/admin/billing/accounts/${w.billingId}/invoices`,
          { lines: [{ description: 'x', unitAmountCents: 1000 + amount * 10 }] },
          undefined,
          w.tenant.keys.admin,
        );
        if (issued.status !== 201) return;
        const invoice = issued.json().data;
        w.invoices.push(invoice.id);
        const pay = await w.send(
          'POST',
          `/invoices/${invoice.id}/pay`,
          { accountId: w.billingId, amountCents: 1000 + amount * 10, currency: 'USD' },
          newKey(),
          undefined,
          f,
        );
        if (pay.status === 201) w.sessions.push(pay.json().data.id);
      }),
  ),
  fc.tuple(n, fault).map(
    ([i, f]) =>
      new Command(`complete(${i},${f})`, async (w) => {
        const session = pick(w.sessions, i);
        if (!session) return;
        const res = await w.send('POST', `/payments/${session}/complete`, undefined, newKey(), undefined, f);
        if (res.status === 200) w.completed.add(session);
      }),
  ),
  fc.tuple(n, fc.constantFrom('succeeded', 'failed'), fault).map(
    ([i, outcome, f]) =>
      new Command(`provider(${i},${outcome},${f})`, async (w) => {
        const session = pick(w.sessions, i);
        if (session)
          await w.send(
            'POST',
            '/admin/payment-provider/simulate',
            { paymentSessionId: session, outcome },
            undefined,
            w.tenant.keys.admin,
            f,
          );
      }),
  ),
  fc.tuple(n, fault).map(
    ([i, f]) =>
      new Command(`complete||failure(${i},${f})`, async (w) => {
        const session = pick(w.sessions, i);
        if (!session) return;
        const [complete] = await Promise.all([
          w.send('POST', `/payments/${session}/complete`, undefined, newKey(), undefined, f),
          w.send(
            'POST',
            '/admin/payment-provider/simulate',
            { paymentSessionId: session, outcome: 'failed' },
            undefined,
            w.tenant.keys.admin,
          ),
        ]);
        if (complete.status === 200) w.completed.add(session);
      }),
  ),
  n.map(
    (i) =>
      new Command(`void(${i})`, async (w) => {
        const invoice = pick(w.invoices, i);
        if (invoice)
          await w.send(
            'POST',
            `/admin/billing/invoices/${invoice}/void`,
            undefined,
            undefined,
            w.tenant.keys.admin,
          );
      }),
  ),
  fc.tuple(n, fc.integer({ min: 1, max: 5 }), fault).map(
    ([p, quantity, f]) =>
      new Command(`subscribe(${p},${quantity},${f})`, async (w) => {
        const plan = pick(w.plans, p);
        const res = await w.send(
          'POST',
          '/subscriptions',
          { productId: plan?.id, quantity, organizationId: w.orgId },
          newKey(),
          undefined,
          f,
        );
        if (res.status === 201) {
          w.subscriptions.push(res.json().data.id);
          w.created.add(res.json().data.id);
        }
      }),
  ),
  fc.tuple(n, fc.integer({ min: 1, max: 6 }), fault).map(
    ([i, quantity, f]) =>
      new Command(`quantity(${i},${quantity},${f})`, async (w) => {
        const sub = pick(w.subscriptions, i);
        if (sub)
          await w.send(
            'POST',
            `/subscriptions/${sub}/change-quantity`,
            { quantity, timing: 'immediate' },
            newKey(),
            undefined,
            f,
          );
      }),
  ),
  fc.tuple(n, n, fault).map(
    ([i, p, f]) =>
      new Command(`plan(${i},${p},${f})`, async (w) => {
        const sub = pick(w.subscriptions, i);
        const plan = pick(w.plans, p);
        if (sub && plan)
          await w.send(
            'POST',
            `/subscriptions/${sub}/change-plan`,
            { targetProductId: plan.id, timing: 'immediate' },
            newKey(),
            undefined,
            f,
          );
      }),
  ),
  fc
    .tuple(
      n,
      fc.constantFrom('immediate', 'end_of_period'),
      fc.constantFrom('none', 'credit', 'refund'),
      fault,
    )
    .map(
      ([i, timing, refund, f]) =>
        new Command(`cancel(${i},${timing},${refund},${f})`, async (w) => {
          const sub = pick(w.subscriptions, i);
          const giveBack = timing === 'immediate' ? { refund } : {};
          if (sub)
            await w.send(
              'POST',
              `/subscriptions/${sub}/cancel`,
              { timing, ...giveBack },
              newKey(),
              undefined,
              f,
            );
        }),
    ),
  fc.tuple(n, fc.option(fc.integer({ min: 1, max: 4000 })), fault).map(
    ([i, amountCents, f]) =>
      new Command(`refund(${i},${amountCents},${f})`, async (w) => {
        const session = pick(w.sessions, i);
        const body = { reason: 'requested_by_customer', ...(amountCents ? { amountCents } : {}) };
        if (session) await w.send('POST', `/payments/${session}/refunds`, body, newKey(), undefined, f);
      }),
  ),
  fc.tuple(n, fc.boolean()).map(
    ([amount, parallel]) =>
      new Command(`grant(${amount},${parallel})`, async (w) => {
        const grant = () =>
          w.send(
            'POST',
            `/accounts/${w.orgId}/credits`,
            { amountCents: 100 + amount * 5, currency: 'USD', reason: 'model' },
            undefined,
            w.tenant.keys.admin,
          );
        await (parallel ? Promise.all([grant(), grant()]) : grant());
      }),
  ),
  fc.tuple(n, n, fault).map(
    ([i, j, f]) =>
      new Command(`apply-credit(${i}||${j},${f})`, async (w) => {
        const a = pick(w.invoices, i);
        const b = pick(w.invoices, j);
        if (!a || !b) return;
        await Promise.all([
          w.send('POST', `/invoices/${a}/apply-credit`, {}, newKey(), undefined, f),
          w.send('POST', `/invoices/${b}/apply-credit`, {}, newKey()),
        ]);
      }),
  ),
  fault.map(
    (f) =>
      new Command(`order(${f})`, async (w) => {
        await w.send(
          'POST',
          '/orders',
          { organizationId: w.orgId, items: [{ productId: w.itemId }] },
          newKey(),
          undefined,
          f,
        );
      }),
  ),
  fc.tuple(n, fc.boolean(), fault).map(
    ([i, sameBody, f]) =>
      new Command(`retry(${i},${sameBody ? 'same' : 'other'} body,${f})`, async (w) => {
        const earlier = pick(w.sent, i);
        if (!earlier?.key || earlier.method !== 'POST') return;
        const body = sameBody || !earlier.body ? earlier.body : { ...earlier.body, quantity: 7 };
        const res = await w.send(earlier.method, earlier.url, body, earlier.key, undefined, f);
        if (res.status === 201 && earlier.url === '/subscriptions' && res.json().data?.id) {
          w.subscriptions.push(res.json().data.id);
          w.created.add(res.json().data.id);
        }
        if (res.status === 200 && earlier.url.endsWith('/complete'))
          w.completed.add(earlier.url.split('/')[2] as string);
      }),
  ),
];

/**
 * Commands of issue 27's round two. Kept apart so the seeds in REGRESSIONS, found with the list
 * above, replay the same sequences (adding a command changes what a seed generates).
 */
/** Operator invoices of the same-key race: amounts no other command issues (theirs end in 0 or 5). */
const RACE_AMOUNTS = [1007, 2007, 3007];

const roundTwoCommands = [
  fc.tuple(fault, fault).map(
    ([f, g]) =>
      new Command(`order-paid(${f},${g})`, async (w) => {
        // Orders that know they are paid: an order paid through POST /payments {orderId} reads
        // paid, offers no payment and refuses another session (409 order_already_paid).
        const created = await w.send('POST', '/orders', {
          organizationId: w.orgId,
          items: [{ productId: w.itemId }],
        });
        if (created.status !== 201) return;
        const order = created.json().data;
        const invoice = (await w.state()).invoices.find((x) => x.id === order.invoiceId);
        const due = Number(invoice?.balanceCents ?? order.totalCents);
        if (due <= 0) return;
        const body = { accountId: w.billingId, amountCents: due, currency: 'USD', orderId: order.id };
        const session = await w.send('POST', '/payments', body, newKey(), undefined, f);
        if (session.status !== 201) return;
        const id = session.json().data.id as string;
        w.sessions.push(id);
        const complete = await w.send('POST', `/payments/${id}/complete`, undefined, newKey(), undefined, g);
        if (complete.status !== 200) return;
        w.completed.add(id);
        const read = (
          await w.send('GET', `/orders/${order.id}`, undefined, undefined, w.tenant.keys.read)
        ).json();
        const offers = (read.nextActions as { operationId?: string }[]).map((a) => a.operationId);
        const again = await w.send('POST', '/payments', { ...body, amountCents: 1 }, newKey());
        if (
          read.data.paymentStatus !== 'paid' ||
          offers.includes('createPaymentSession') ||
          again.status !== 409
        )
          w.violations.push(
            `order ${order.id} paid in full reads ${read.data.paymentStatus}, offers ${offers}, another session ${again.status}`,
          );
      }),
  ),
  fc.tuple(fc.constantFrom('/refunds', '/payments', '/subscriptions', '/audit-logs'), fc.nat(3)).map(
    ([list, how]) =>
      new Command(`tampered-cursor(${list},${how})`, async (w) => {
        // Issue 27, finding 2: a cursor we did not sign is 400 naming query.cursor, never a 500.
        const apiKey = list === '/audit-logs' ? w.tenant.keys.admin : w.tenant.keys.read;
        const first = await w.send('GET', `${list}?limit=1`, undefined, undefined, apiKey);
        const genuine = first.json().meta?.nextCursor as string | null | undefined;
        if (!genuine) return;
        const [payload = '', keyId = '', mac = ''] = genuine.split('.');
        const position = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
        const moved = Buffer.from(
          JSON.stringify(
            position.map((v) =>
              typeof v === 'string' && /^\d{4}-/.test(v) ? '+010000-01-01T00:00:00.000Z' : v,
            ),
          ),
        ).toString('base64url');
        const tampered = [`${moved}.${keyId}.${mac}`, genuine.slice(0, -3), `${payload}.${keyId}.`, 'x'][
          how
        ] as string;
        const res = await w.send(
          'GET',
          `${list}?limit=1&cursor=${encodeURIComponent(tampered)}`,
          undefined,
          undefined,
          apiKey,
        );
        const field = res.status === 400 ? res.json().details?.[0]?.field : undefined;
        if (res.status !== 400 || field !== 'query.cursor')
          w.violations.push(`${list}: a tampered cursor answered ${res.status} naming ${field}`);
      }),
  ),
  fc.tuple(n, n, fault).map(
    ([amount, i, f]) =>
      new Command(`expiring-credit(${amount},${i},${f})`, async (w) => {
        // Issue 27, finding 3: a grant counts nowhere from its expiresAt on, before any sweep.
        const expiresAt = new Date(clock.now().getTime() + 60_000);
        const granted = await w.send(
          'POST',
          `/accounts/${w.orgId}/credits`,
          {
            amountCents: 100 + amount,
            currency: 'USD',
            reason: 'expiring',
            expiresAt: expiresAt.toISOString(),
          },
          undefined,
          w.tenant.keys.admin,
        );
        if (granted.status !== 201) return;
        const grantId = granted.json().data.id as string;
        clock.set(expiresAt); // exactly the boundary: from now on it counts nowhere
        const invoice = pick(w.invoices, i);
        if (invoice) await w.send('POST', `/invoices/${invoice}/apply-credit`, {}, newKey(), undefined, f);
        const issued = await w.send(
          'POST',
          `/admin/billing/accounts/${w.billingId}/invoices`,
          { lines: [{ description: 'after expiry', unitAmountCents: 500 }] },
          undefined,
          w.tenant.keys.admin,
        );
        if (issued.status === 201) w.invoices.push(issued.json().data.id);
        const grant = (await w.state()).credits.find((e) => e.id === grantId);
        if (Number(grant?.remainingCents) !== 100 + amount)
          w.violations.push(
            `expired grant ${grantId} was spent: ${grant?.remainingCents} of ${100 + amount} left`,
          );
      }),
  ),
  fc.tuple(n, fc.constantFrom('refund', 'apply-credit', 'invoice'), fault).map(
    ([i, kind, f]) =>
      new Command(`same-key-3-bodies(${kind},${i},${f})`, async (w) => {
        // Issue 27, finding 1: one Idempotency-Key, three bodies at once. At most one is told 2xx,
        // and after the reconciler's pass nothing took effect beyond what the answers allow.
        const session = pick(w.sessions, i);
        const invoice = pick(w.invoices, i);
        const target = {
          refund: session && {
            url: `/payments/${session}/refunds`,
            body: (k: number) => ({ amountCents: k * 10, reason: 'requested_by_customer' }),
          },
          'apply-credit': invoice && {
            url: `/invoices/${invoice}/apply-credit`,
            body: (k: number) => ({ amountCents: k * 10 }),
          },
          invoice: {
            url: `/admin/billing/accounts/${w.billingId}/invoices`,
            body: (k: number) => ({ lines: [{ description: 'x', unitAmountCents: RACE_AMOUNTS[k - 1] }] }),
          },
        }[kind];
        if (!target) return;
        // What this race can have made (the reconciler's pass also finishes earlier commands' work).
        const count = async () => {
          const s = await w.state();
          if (kind === 'refund') return s.refunds.filter((r) => r.paymentSessionId === session).length;
          if (kind === 'apply-credit')
            return s.credits.filter((e) => e.kind === 'application' && e.invoiceId === invoice).length;
          return s.invoices.filter((x) => RACE_AMOUNTS.includes(Number(x.amountCents))).length;
        };
        await w.settle(); // earlier commands' pending work is finished first, not counted as this race's
        const before = await count();
        const invoicesBefore = new Set((await w.state()).invoices.map((x) => x.id));
        const key = newKey();
        const apiKey = kind === 'invoice' ? w.tenant.keys.admin : undefined;
        const answers = await w.sendAll(
          [1, 2, 3].map((k) => ({ method: 'POST', url: target.url, body: target.body(k), key, apiKey })),
          f,
        );
        await w.settle();
        const told = answers.filter((a) => a.status < 300).length;
        const unknown = answers.filter((a) => a.status >= 500).length;
        const made = (await count()) - before;
        if (told > 1 || made > told + unknown)
          w.violations.push(
            `${kind}: one key, three bodies answered ${answers.map((a) => a.status)}, ${made} made`,
          );
        // The operator's invoices this race made are the world's (others' owners are checked).
        if (kind === 'invoice')
          for (const made of (await w.state()).invoices)
            if (!invoicesBefore.has(made.id) && !made.subscriptionId) w.invoices.push(made.id);
      }),
  ),
];

describe.skipIf(!usingPostgres)(
  'money stays consistent across the billing boundary (model-based, PostgreSQL)',
  () => {
    let t: TestApp;
    const faults = new FaultController();

    beforeAll(async () => {
      t = await startApp({ clock, wrapBilling: (a) => withFaults(a, faults) });
    });
    afterAll(() => t.app.close());

    const property = (list: fc.Arbitrary<Cmd>[]) =>
      fc.asyncProperty(fc.commands(list, { maxCommands: 40, size: 'large' }), async (cmds) => {
        const world = new MoneyWorld(t, faults);
        await world.setUp();
        await fc.asyncModelRun(() => ({ model: { steps: 0 }, real: world }), cmds);
        await world.settle();
        const problems = await world.problems();
        if (process.env.MONEY_DEBUG)
          console.log(
            String(cmds),
            world.sent.length,
            world.sessions.length,
            world.subscriptions.length,
            (await world.state()).invoices.length,
          );
        expect(problems, `after ${cmds}`).toEqual([]);
      });

    it(`random sequences of ${RUNS} runs with faults and races: the two systems agree`, async () => {
      await fc.assert(property([...commands, ...roundTwoCommands]), {
        numRuns: RUNS,
        ...(SEED === undefined ? {} : { seed: SEED }),
        ...(process.env.MONEY_PATH ? { path: process.env.MONEY_PATH } : {}),
        // MONEY_SHRINK=1 shrinks a failure to a short sequence (slow: each try is a whole run).
        endOnFailure: process.env.MONEY_SHRINK !== '1',
      });
    }, 600_000);

    it.each(REGRESSIONS)(
      'regression: seed $seed, path $path',
      async ({ seed, path }) => {
        await fc.assert(property(commands), { seed, path, endOnFailure: true });
      },
      // About 75 s on PostgreSQL on the 2-core CI machine; a Citus cluster on the same cores
      // pays a network hop per statement and needs more.
      300_000,
    );
  },
);
