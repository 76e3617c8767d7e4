import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { planChangeFigures } from '../src/modules/subscriptions/amounts/figures.js';
import {
  addMonths,
  nextPeriod,
  periodEnd,
  prorate,
  prorationDays,
} from '../src/modules/subscriptions/amounts/periods.js';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from './harness.js';
import { adminPost, perSeat } from './support/catalog-fixtures.js';

const d = (s: string) => new Date(s);
const DAY = 86_400_000;

describe('billing periods and proration (pure)', () => {
  it('adds months clamping to month ends, counted from the anchor (leap years included)', () => {
    expect(addMonths(d('2024-01-31T09:30:00Z'), 1).toISOString()).toBe('2024-02-29T09:30:00.000Z');
    expect(addMonths(d('2023-01-31T09:30:00Z'), 1).toISOString()).toBe('2023-02-28T09:30:00.000Z');
    expect(addMonths(d('2024-01-31T00:00:00Z'), 2).toISOString()).toBe('2024-03-31T00:00:00.000Z');
    expect(addMonths(d('2024-12-15T00:00:00Z'), 1).toISOString()).toBe('2025-01-15T00:00:00.000Z');
    expect(periodEnd(d('2024-02-29T00:00:00Z'), 'year', 1).toISOString()).toBe('2025-02-28T00:00:00.000Z');
    expect(periodEnd(d('2024-02-29T00:00:00Z'), 'year', 4).toISOString()).toBe('2028-02-29T00:00:00.000Z');
    // The day is not lost after a short month: Jan 31 -> Feb 29 -> Mar 31.
    const anchor = d('2024-01-31T00:00:00Z');
    const feb = nextPeriod(anchor, 'month', d('2024-02-29T00:00:00Z'));
    expect(feb).toEqual({ start: d('2024-02-29T00:00:00Z'), end: d('2024-03-31T00:00:00Z') });
  });

  it('counts UTC calendar days; the day of the change counts as remaining', () => {
    expect(
      prorationDays(d('2024-02-01T10:00:00Z'), d('2024-03-01T10:00:00Z'), d('2024-02-01T23:00:00Z')),
    ).toEqual({
      remaining: 29,
      total: 29,
    });
    expect(
      prorationDays(d('2023-02-01T10:00:00Z'), d('2023-03-01T10:00:00Z'), d('2023-02-15T00:00:00Z')),
    ).toEqual({
      remaining: 14,
      total: 28,
    });
    expect(
      prorationDays(d('2024-01-01T00:00:00Z'), d('2025-01-01T00:00:00Z'), d('2024-12-31T00:00:00Z')),
    ).toEqual({
      remaining: 1,
      total: 366,
    });
    // Past the end: nothing left.
    expect(
      prorationDays(d('2024-01-01T00:00:00Z'), d('2024-02-01T00:00:00Z'), d('2024-03-01T00:00:00Z'))
        .remaining,
    ).toBe(0);
  });

  it('rounds half up in integers; bounded by the amount', () => {
    expect(prorate(100, { remaining: 1, total: 2 })).toBe(50);
    expect(prorate(1, { remaining: 1, total: 2 })).toBe(1); // 0.5 -> 1
    expect(prorate(1, { remaining: 1, total: 3 })).toBe(0);
    expect(prorate(5000, { remaining: 21, total: 31 })).toBe(3387);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 1, max: 366 }),
        fc.nat(),
        (a, total, r) => {
          const remaining = r % (total + 1);
          const v = prorate(a, { remaining, total });
          expect(Number.isInteger(v)).toBe(true);
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(a);
          expect(Math.abs(v - (a * remaining) / total)).toBeLessThanOrEqual(0.5);
          expect(prorate(a, { remaining: total, total })).toBe(a);
        },
      ),
    );
  });

  it('an immediate switch of interval starts a new period charged in full, crediting the unused days', () => {
    const f = planChangeFigures({
      state: {
        priceCents: 3100,
        billingInterval: 'month',
        currentPeriodStart: d('2024-01-01T00:00:00Z'),
        currentPeriodEnd: d('2024-02-01T00:00:00Z'),
      },
      newPriceCents: 30_000,
      targetInterval: 'year',
      direction: 'lateral',
      changeTiming: 'immediate',
      prorationType: 'prorated',
      at: d('2024-01-11T12:00:00Z'),
    });
    expect(f).toMatchObject({ creditCents: 2100, chargeCents: 30_000, netCents: 27_900 });
    expect(f.newPeriod).toEqual({ start: d('2024-01-11T12:00:00Z'), end: d('2025-01-11T12:00:00Z') });
  });
});

describe('preview equals change (over HTTP)', () => {
  let t: TestApp;
  const clock = new ManualClock(d('2024-01-31T12:00:00Z'));
  let shop: TestTenant;

  beforeAll(async () => {
    t = await startApp({ clock });
    shop = await createTestTenant(t.deps);
  });
  afterAll(() => t.app.close());

  const post = (url: string, payload: object, key = shop.keys.commerce) =>
    t.app.inject({ method: 'POST', url: `/api/v1${url}`, headers: bearer(key), payload });

  it('annual <-> monthly: lateral (not an upgrade by price per day), new period, full charge', async () => {
    clock.set(d('2024-01-31T12:00:00Z'));
    const monthly = await adminPost(
      t,
      shop,
      'products',
      perSeat('Pro monthly', 3000, { family: 'pro', rank: 1 }),
    );
    const annual = await adminPost(
      t,
      shop,
      'products',
      perSeat('Pro annual', 30_000, { family: 'pro', rank: 1, billingInterval: 'year' }),
    );
    const sub = (await post('/subscriptions', { productId: annual.id, contactId: shop.tenantId })).json()
      .data;
    expect(sub.currentPeriodEnd).toBe('2025-01-31T12:00:00.000Z');
    clock.set(d('2024-07-31T00:00:00Z')); // 184 of 366 days left
    const preview = (
      await post(
        '/preview/plan-change',
        { subscriptionId: sub.id, targetProductId: monthly.id },
        shop.keys.read,
      )
    ).json().data;
    expect(preview).toMatchObject({
      direction: 'lateral',
      businessRule: { ruleId: 'default-lateral', changeTiming: 'immediate', prorationType: 'prorated' },
      // credit 30000 * 184 / 366 = 15081.97; the monthly period starts now and is charged in full.
      financialImpact: {
        currentPriceCents: 30_000,
        newPriceCents: 3000,
        creditCents: 15_082,
        chargeCents: 3000,
        netCents: -12_082,
      },
      proration: { remainingDays: 184, totalDays: 366 },
    });
    const res = await post(`/subscriptions/${sub.id}/change-plan`, {
      targetProductId: monthly.id,
      previewId: preview.previewId,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      billingInterval: 'month',
      priceCents: 3000,
      currentPeriodStart: '2024-07-31T00:00:00.000Z',
      currentPeriodEnd: '2024-08-31T00:00:00.000Z',
    });
    // And back to annual at the period end (rule timing override): effective at Aug 31.
    const back = await post(`/subscriptions/${sub.id}/change-plan`, {
      targetProductId: annual.id,
      timing: 'end_of_period',
    });
    expect(back.json().data).toMatchObject({
      status: 'pending_change',
      pendingChange: { billingInterval: 'year', effectiveAt: '2024-08-31T00:00:00.000Z' },
    });
  });

  it('property: for random plans, quantities, rules and days into the period, the change does what the preview said', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          fromCents: fc.integer({ min: 1, max: 50_000 }),
          toCents: fc.integer({ min: 1, max: 50_000 }),
          fromRank: fc.integer({ min: 0, max: 3 }),
          toRank: fc.integer({ min: 0, max: 3 }),
          toInterval: fc.constantFrom('month', 'year'),
          quantity: fc.integer({ min: 1, max: 40 }),
          startDay: fc.integer({ min: 0, max: 730 }),
          daysIn: fc.integer({ min: 0, max: 27 }), // within the (shortest) first period
          prorationType: fc.constantFrom('prorated', 'none', 'full_credit', null),
          timing: fc.constantFrom('immediate', 'end_of_period', undefined),
        }),
        async (c) => {
          n++;
          const family = `f${n}`;
          clock.set(new Date(d('2023-01-01T06:00:00Z').getTime() + c.startDay * DAY));
          const from = await adminPost(
            t,
            shop,
            'products',
            perSeat(`From ${n}`, c.fromCents, { family, rank: c.fromRank }),
          );
          const to = await adminPost(
            t,
            shop,
            'products',
            perSeat(`To ${n}`, c.toCents, { family, rank: c.toRank, billingInterval: c.toInterval }),
          );
          if (c.prorationType)
            await adminPost(t, shop, 'plan-change-rules', {
              name: `rule ${n}`,
              family,
              changeTiming: 'immediate',
              prorationType: c.prorationType,
            });
          const sub = (
            await post('/subscriptions', {
              productId: from.id,
              quantity: c.quantity,
              contactId: shop.tenantId,
            })
          ).json().data;
          clock.set(new Date(clock.now().getTime() + c.daysIn * DAY));
          const body = { targetProductId: to.id, ...(c.timing ? { timing: c.timing } : {}) };
          const preview = await post(
            '/preview/plan-change',
            { subscriptionId: sub.id, ...body },
            shop.keys.read,
          );
          expect(preview.statusCode, preview.body).toBe(200);
          const p = preview.json().data;
          const res = await post(`/subscriptions/${sub.id}/change-plan`, body);
          expect(res.statusCode, res.body).toBe(200);
          const changed = res.json().data;
          const entry = (
            await t.app.inject({
              method: 'GET',
              url: `/api/v1/audit-logs?resourceId=${sub.id}&action=subscription.change`,
              headers: bearer(shop.keys.admin),
            })
          ).json().data[0];
          const fi = p.financialImpact;
          expect(entry.details).toMatchObject({
            creditCents: fi.creditCents,
            chargeCents: fi.chargeCents,
            netCents: fi.netCents,
            effectiveDate: p.effectiveDate,
          });
          expect(fi.netCents).toBe(fi.chargeCents - fi.creditCents);
          expect(fi.creditCents).toBeLessThanOrEqual(fi.currentPriceCents);
          if (entry.details.changeTiming === 'end_of_period') {
            expect(p.effectiveDate).toBe(sub.currentPeriodEnd);
            expect(changed.pendingChange).toMatchObject({ productId: to.id, priceCents: fi.newPriceCents });
          } else {
            expect(changed).toMatchObject({
              productId: to.id,
              priceCents: fi.newPriceCents,
              billingInterval: c.toInterval,
            });
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});
