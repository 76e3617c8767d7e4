import { and, count, eq, gt, inArray, lte, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Static } from 'typebox';
import { iso } from '../../core/format.js';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { intents } from '../../unit-of-work/index.js';
import { checkoutSessions } from '../checkout-sessions/index.js';
import { orders } from '../orders/index.js';
import { paymentSessions, refunds } from '../payments/index.js';
import { webhookDeliveries, webhookSubscriptions } from '../webhooks/index.js';
import type { OverviewSchema } from './schemas.js';

export type Overview = Static<typeof OverviewSchema>;

const DAY_MS = 86_400_000;
/** How many endpoints with failing deliveries the overview names (the worst first). */
const FAILING_ENDPOINTS_SHOWN = 10;

interface MoneyTable {
  tenantId: PgColumn;
  createdAt: PgColumn;
  currency: PgColumn;
}

/**
 * Count and amount per currency of one kind of money record over the last 30 days, and the part
 * of it in the last 24 hours, in one grouped read.
 */
async function moneyWindows(
  db: Queryable,
  tenantId: string,
  table: MoneyTable,
  amount: PgColumn,
  now: Date,
  only?: SQL,
) {
  const dayAgo = new Date(now.getTime() - DAY_MS);
  const recent = sql`${table.createdAt} > ${dayAgo}`;
  const rows: { currency: string; count30: string; amount30: string; count24: string; amount24: string }[] =
    await db
      .select({
        currency: sql<string>`${table.currency}`,
        count30: sql<string>`count(*)`,
        amount30: sql<string>`coalesce(sum(${amount}), 0)`,
        count24: sql<string>`count(*) filter (where ${recent})`,
        amount24: sql<string>`coalesce(sum(${amount}) filter (where ${recent}), 0)`,
      })
      .from(table as never)
      .where(tenantWhere(table as never, tenantId, windowOf(table.createdAt, now, 30), only))
      .groupBy(table.currency);
  const window = (c: 'count24' | 'count30', a: 'amount24' | 'amount30') => ({
    count: rows.reduce((n, r) => n + Number(r[c]), 0),
    amounts: rows
      .filter((r) => Number(r[c]) > 0)
      .map((r) => ({ currency: r.currency, amountCents: Number(r[a]) }))
      .sort((x, y) => x.currency.localeCompare(y.currency)),
  });
  return { last24Hours: window('count24', 'amount24'), last30Days: window('count30', 'amount30') };
}

const windowOf = (column: PgColumn, now: Date, days: number) =>
  and(gt(column, new Date(now.getTime() - days * DAY_MS)), lte(column, now));

/** Amounts per UTC day and currency over the last 30 days. */
async function amountsByDay(
  db: Queryable,
  tenantId: string,
  table: MoneyTable,
  amount: PgColumn,
  now: Date,
  only: SQL,
) {
  const day = sql<string>`to_char(${table.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const rows: { day: string; currency: string; amount: string }[] = await db
    .select({
      day,
      currency: sql<string>`${table.currency}`,
      amount: sql<string>`coalesce(sum(${amount}), 0)`,
    })
    .from(table as never)
    .where(tenantWhere(table as never, tenantId, windowOf(table.createdAt, now, 30), only))
    .groupBy(sql`1, 2`);
  return rows.map((r) => ({ day: r.day, currency: r.currency, amount: Number(r.amount) }));
}

/**
 * Revenue per UTC day for the 30 days ending today, per currency seen: successful payments
 * (by when they were created) less succeeded refunds (by when they were made). Every day is
 * listed, zero where nothing happened, so a chart needs no gap filling.
 */
async function revenueSeries(db: Queryable, tenantId: string, now: Date) {
  const [paid, refunded] = await Promise.all([
    amountsByDay(
      db,
      tenantId,
      paymentSessions,
      paymentSessions.amountCents,
      now,
      eq(paymentSessions.status, 'success'),
    ),
    amountsByDay(db, tenantId, refunds, refunds.amountCents, now, eq(refunds.status, 'succeeded')),
  ]);
  const currencies = [...new Set([...paid, ...refunded].map((r) => r.currency))].sort();
  const days = Array.from({ length: 30 }, (_, i) =>
    iso(new Date(now.getTime() - (29 - i) * DAY_MS)).slice(0, 10),
  );
  const sum = (list: typeof paid, day: string, currency: string) =>
    list.filter((r) => r.day === day && r.currency === currency).reduce((n, r) => n + r.amount, 0);
  return currencies.map((currency) => {
    const series = days.map((date) => {
      const paymentsCents = sum(paid, date, currency);
      const refundsCents = sum(refunded, date, currency);
      return { date, paymentsCents, refundsCents, netCents: paymentsCents - refundsCents };
    });
    return { currency, netCents: series.reduce((n, d) => n + d.netCents, 0), days: series };
  });
}

/** Checkout sessions by status as they read now: an open one past its expiry counts as canceled. */
async function checkoutsByStatus(db: Queryable, tenantId: string, now: Date) {
  const status = sql<string>`case when ${checkoutSessions.status} not in ('completed', 'canceled')
    and ${checkoutSessions.expiresAt} <= ${now} then 'canceled' else ${checkoutSessions.status} end`;
  const rows = await db
    .select({ status, n: count() })
    .from(checkoutSessions)
    .where(tenantWhere(checkoutSessions, tenantId))
    .groupBy(sql`1`);
  return rows
    .map((r) => ({ status: r.status, count: Number(r.n) }))
    .sort((a, b) => a.status.localeCompare(b.status));
}

/** Endpoints, and those with deliveries failing (retrying) or dead-lettered, worst first. */
async function webhookHealth(db: Queryable, tenantId: string) {
  const failing = inArray(webhookDeliveries.status, ['failed', 'dead_letter']);
  const [endpoints, byEndpoint, totals] = await Promise.all([
    db
      .select({
        id: webhookSubscriptions.id,
        url: webhookSubscriptions.url,
        isActive: webhookSubscriptions.isActive,
      })
      .from(webhookSubscriptions)
      .where(tenantWhere(webhookSubscriptions, tenantId)),
    db
      .select({
        id: webhookDeliveries.subscriptionId,
        failing: sql<string>`count(*) filter (where ${webhookDeliveries.status} = 'failed')`,
        deadLetters: sql<string>`count(*) filter (where ${webhookDeliveries.status} = 'dead_letter')`,
      })
      .from(webhookDeliveries)
      .where(tenantWhere(webhookDeliveries, tenantId, failing))
      .groupBy(webhookDeliveries.subscriptionId),
    db
      .select({ status: webhookDeliveries.status, n: count() })
      .from(webhookDeliveries)
      .where(
        tenantWhere(
          webhookDeliveries,
          tenantId,
          inArray(webhookDeliveries.status, ['pending', 'dead_letter']),
        ),
      )
      .groupBy(webhookDeliveries.status),
  ]);
  const urlOf = new Map(endpoints.map((e) => [e.id, e]));
  const failingEndpoints = byEndpoint
    .map((r) => ({
      id: r.id,
      url: urlOf.get(r.id)?.url ?? '',
      isActive: urlOf.get(r.id)?.isActive ?? false,
      failingDeliveries: Number(r.failing),
      deadLetters: Number(r.deadLetters),
    }))
    .sort((a, b) => b.failingDeliveries + b.deadLetters - (a.failingDeliveries + a.deadLetters))
    .slice(0, FAILING_ENDPOINTS_SHOWN);
  const total = (status: string) => Number(totals.find((t) => t.status === status)?.n ?? 0);
  return {
    endpoints: endpoints.length,
    activeEndpoints: endpoints.filter((e) => e.isActive).length,
    failingEndpoints,
    pendingDeliveries: total('pending'),
    deadLetters: total('dead_letter'),
  };
}

/** Intents not closed: still running (`pending`) or waiting for an operator (`attention`). */
async function openIntents(db: Queryable, tenantId: string) {
  const rows = await db
    .select({ status: intents.status, n: count() })
    .from(intents)
    .where(tenantWhere(intents, tenantId, inArray(intents.status, ['pending', 'attention'])))
    .groupBy(intents.status);
  const of = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
  return { pending: of('pending'), attention: of('attention') };
}

/** What the console's overview shows, as of `now`. */
export async function readOverview(db: Queryable, tenantId: string, now: Date): Promise<Overview> {
  const [orderWindows, paymentWindows, refundWindows, revenue, checkouts, webhooks, open] = await Promise.all(
    [
      moneyWindows(db, tenantId, orders, orders.totalCents, now),
      moneyWindows(
        db,
        tenantId,
        paymentSessions,
        paymentSessions.amountCents,
        now,
        eq(paymentSessions.status, 'success'),
      ),
      moneyWindows(db, tenantId, refunds, refunds.amountCents, now, eq(refunds.status, 'succeeded')),
      revenueSeries(db, tenantId, now),
      checkoutsByStatus(db, tenantId, now),
      webhookHealth(db, tenantId),
      openIntents(db, tenantId),
    ],
  );
  return {
    asOf: iso(now),
    orders: orderWindows,
    payments: paymentWindows,
    refunds: refundWindows,
    revenue,
    checkoutSessions: checkouts,
    webhooks,
    openIntents: open,
  };
}
