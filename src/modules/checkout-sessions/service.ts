import { desc, eq, type SQL, sql } from 'drizzle-orm';
import { AppError, notFound } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import type { PageRequest } from '../../core/paging.js';
import { type Queryable, rowsOf } from '../../db/client.js';
import { rowsAfter } from '../../db/keyset.js';
import { rowById, rowUpsert } from '../../db/row-statements.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { SessionInputs } from './decide.js';
import type { CheckoutProtocol, CheckoutSession, CheckoutStatus } from './model.js';
import { type CheckoutSessionRow, checkoutSessions } from './tables.js';

const readSession = rowById(checkoutSessions);
/** Writes a session's whole row (insert or replace): its text built once (db/row-statements.ts). */
export const writeSession = rowUpsert(checkoutSessions);

/** How long an open session lives (UCP's default): past it, the session reads as canceled. */
export const SESSION_TTL_MS = 6 * 60 * 60 * 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const CLOSED: readonly CheckoutStatus[] = ['completed', 'canceled'];

/** Its status now: an open session past its expiry is canceled, though no sweep has run. */
export function statusAt(row: CheckoutSessionRow, now: Date): CheckoutStatus {
  if (!CLOSED.includes(row.status) && now >= row.expiresAt) return 'canceled';
  return row.status;
}

export const isClosed = (status: CheckoutStatus) => CLOSED.includes(status);

export function presentCheckout(row: CheckoutSessionRow, now: Date): CheckoutSession {
  const status = statusAt(row, now);
  const expired = status === 'canceled' && row.status !== 'canceled';
  return {
    id: row.id,
    protocol: row.protocol,
    status,
    currency: row.currency,
    items: row.items,
    lines: row.lines,
    buyer: row.buyer,
    address: row.address,
    fulfillmentOptions: row.fulfillmentOptions,
    selectedFulfillmentOptionId: row.selectedFulfillmentOptionId,
    discountCodes: row.discountCodes,
    appliedDiscounts: row.appliedDiscounts,
    rejectedDiscounts: row.rejectedDiscounts,
    totals: row.totals,
    messages: expired
      ? [{ type: 'info', code: 'invalid', content: `The session expired at ${iso(row.expiresAt)}` }]
      : row.messages,
    orderId: row.orderId,
    paymentSessionId: row.paymentSessionId,
    continueUrl: row.continueUrl,
    platform: { webhookUrl: row.platformWebhookUrl, profileUrl: row.platformProfileUrl },
    expiresAt: iso(row.expiresAt),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

export const inputsOf = (row: CheckoutSessionRow): SessionInputs => ({
  items: row.items,
  buyer: row.buyer,
  address: row.address,
  selectedFulfillmentOptionId: row.selectedFulfillmentOptionId,
  discountCodes: row.discountCodes,
});

/** The tenant's session (with `lock`, under its row lock); 404 for an unknown id or another tenant's. */
export async function sessionRow(q: Queryable, tenantId: string, id: string, lock = false) {
  if (!UUID.test(id)) throw notFound('Checkout session');
  const row = await readSession(q, tenantId, id.toLowerCase(), lock);
  if (!row) throw notFound('Checkout session');
  return row;
}

/** 409 checkout_session_closed: the way out is a new session. */
export const sessionClosed = (status: CheckoutStatus) =>
  new AppError(
    'checkout_session_closed',
    `The checkout session is ${status}: it cannot change. Create a new checkout session`,
  );

/** The session, open for a change, under its row lock. */
export async function openSession(q: Queryable, tenantId: string, id: string, now: Date) {
  const row = await sessionRow(q, tenantId, id, true);
  const status = statusAt(row, now);
  if (isClosed(status)) throw sessionClosed(status);
  return row;
}

/**
 * Sessions of every tenant by status as they read now (an open one past its expiry counts as
 * canceled, as `statusAt` says), for the operator's metrics.
 */
export async function sessionCountsByStatus(q: Queryable, now: Date): Promise<Record<string, number>> {
  const rows = rowsOf<{ status: string; n: string | number }>(
    await q.execute(sql`
      select case when status not in ('completed', 'canceled') and expires_at <= ${now}
                  then 'canceled' else status end as status,
             count(*) as n
      from checkout_sessions group by 1`),
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** A session's status as it reads at `now`, in SQL (as `statusAt`: an expired open one is canceled). */
const statusAtSql = (now: Date) =>
  sql`case when ${checkoutSessions.status} not in ('completed', 'canceled') and ${checkoutSessions.expiresAt} <= ${now}
    then 'canceled' else ${checkoutSessions.status} end`;

/** The tenant's sessions, newest first, a page (`limit + 1` rows after its key) at a time. */
export async function listSessions(
  q: Queryable,
  tenantId: string,
  filters: { status?: CheckoutStatus | undefined; protocol?: CheckoutProtocol | undefined },
  page: PageRequest,
  now: Date,
): Promise<CheckoutSessionRow[]> {
  const conditions: (SQL | undefined)[] = [
    filters.status ? sql`${statusAtSql(now)} = ${filters.status}` : undefined,
    filters.protocol ? eq(checkoutSessions.protocol, filters.protocol) : undefined,
    page.after ? rowsAfter([checkoutSessions.createdAt, checkoutSessions.id], page.after, true) : undefined,
  ];
  return q
    .select()
    .from(checkoutSessions)
    .where(tenantWhere(checkoutSessions, tenantId, ...conditions))
    .orderBy(desc(checkoutSessions.createdAt), desc(checkoutSessions.id))
    .limit(page.limit + 1);
}
