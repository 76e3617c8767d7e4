import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { AppError, notFound } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import type { PageRequest } from '../../core/paging.js';
import type { Tags } from '../../core/tags.js';
import type { Queryable } from '../../db/client.js';
import { rowsAfter } from '../../db/keyset.js';
import { type ScalarRead, tenantRead } from '../../db/read-together.js';
import { rowUpsert } from '../../db/row-statements.js';
import { tagsMatch } from '../../db/tags.js';
import { tenantRepo } from '../../db/tenant-repo.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { OrderPaymentView, ResourceClaim } from '../../unit-of-work/index.js';
import { type PaymentStatus, paymentSessions, type SessionReversal, TERMINAL_STATUSES } from './tables.js';

export type PaymentSessionRow = typeof paymentSessions.$inferSelect;

export interface PaymentSessionApi {
  id: string;
  tenantId: string;
  accountId: string;
  amountCents: number;
  currency: string;
  status: PaymentStatus;
  invoiceId: string | null;
  orderId: string | null;
  paymentPageSlug: string | null;
  refundedCents: number;
  reversal: SessionReversal | null;
  tags: Tags;
  createdAt: string;
  updatedAt: string;
}

const repo = tenantRepo(paymentSessions);

export const isTerminal = (status: PaymentStatus) => TERMINAL_STATUSES.includes(status);

export function presentSession(row: PaymentSessionRow): PaymentSessionApi {
  return {
    id: row.id,
    tenantId: row.tenantId,
    accountId: row.accountId,
    amountCents: row.amountCents,
    currency: row.currency,
    status: row.status,
    invoiceId: row.invoiceId,
    orderId: row.orderId,
    paymentPageSlug: row.paymentPageSlug,
    refundedCents: row.refundedCents,
    reversal: row.reversal ?? null,
    tags: row.tags,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

export async function getSession(db: Queryable, tenantId: string, id: string, lock = false) {
  const query = db
    .select()
    .from(paymentSessions)
    .where(tenantWhere(paymentSessions, tenantId, eq(paymentSessions.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

/** Sessions matching the filters, newest first; with a page, `limit + 1` rows after its key. */
export async function listSessions(
  db: Queryable,
  tenantId: string,
  filters: { accountId?: string | undefined; status?: string | undefined; tag?: string[] | undefined },
  page: PageRequest | null = null,
) {
  const query = db
    .select()
    .from(paymentSessions)
    .where(
      tenantWhere(
        paymentSessions,
        tenantId,
        and(
          filters.accountId ? eq(paymentSessions.accountId, filters.accountId) : undefined,
          filters.status ? eq(paymentSessions.status, filters.status as PaymentStatus) : undefined,
          tagsMatch(paymentSessions.tags, filters.tag),
          page?.after
            ? rowsAfter([paymentSessions.createdAt, paymentSessions.id], page.after, true)
            : undefined,
        ),
      ),
    )
    .orderBy(desc(paymentSessions.createdAt), desc(paymentSessions.id));
  return page ? query.limit(page.limit + 1) : query;
}

export interface NewSession {
  accountId: string;
  amountCents: number;
  currency: string;
  invoiceId: string | null;
  /** The order paid, if any (omitted: none). */
  orderId?: string | null;
  paymentPageSlug: string | null;
}

export async function insertSession(tx: Queryable, tenantId: string, input: NewSession, now: Date) {
  return repo.insert(tx, tenantId, {
    id: uuidv7(),
    ...input,
    status: 'pending',
    resolvedBy: null,
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * A payment taken by a checkout's payment handler (an agentic checkout's card): recorded as a
 * session that is already `success`, paying `orderId`, in the caller's transaction. The order is
 * written paid by the same unit of work.
 */
export async function insertCapturedSession(
  tx: Queryable,
  tenantId: string,
  input: { accountId: string; amountCents: number; currency: string; orderId: string; resolvedBy: string },
  now: Date,
): Promise<PaymentSessionRow> {
  const row: PaymentSessionRow = {
    tenantId,
    id: uuidv7(),
    ...input,
    invoiceId: null,
    paymentPageSlug: null,
    status: 'success',
    operationKey: null,
    refundedCents: 0,
    reversal: null,
    tags: {},
    createdAt: now,
    updatedAt: now,
  };
  // Text built once: written on every agentic checkout's completion (db/row-statements.ts).
  await writeCapturedSession(tx, row);
  return row;
}

const writeCapturedSession = rowUpsert(paymentSessions);

/** The session under its row lock, in the caller's transaction. */
export const lockSession = (tx: Queryable, tenantId: string, id: string) =>
  getSession(tx, tenantId, id, true);

/**
 * The claim of a session by the operation settling or reversing its invoice payment, under its row
 * lock: 404 when missing; 409 (retry shortly) when another operation holds it or it is no longer
 * as the operation decided (`expected`).
 */
export const sessionClaim: ResourceClaim<(row: PaymentSessionRow) => boolean> = {
  subjectType: 'payment_session',
  async claim(tx, tenantId, id, operationId, expected) {
    const row = await lockSession(tx, tenantId, id);
    if (!row) throw notFound('Payment session');
    if ((row.operationKey !== null && row.operationKey !== operationId) || !expected(row))
      throw sessionBusy();
    await repo.update(tx, tenantId, id, { operationKey: operationId });
  },
  async release(q, tenantId, id, operationId) {
    await q
      .update(paymentSessions)
      .set({ operationKey: null })
      .where(
        tenantWhere(
          paymentSessions,
          tenantId,
          eq(paymentSessions.id, id),
          eq(paymentSessions.operationKey, operationId),
        ),
      );
  },
};

export const sessionBusy = () =>
  new AppError(
    'conflict',
    "The session's invoice payment is being settled or reversed by another operation; retry shortly",
    undefined,
    1,
  );

/** Moves the locked session to a terminal `status`, clearing its claim. */
export async function resolveSessionRow(
  tx: Queryable,
  tenantId: string,
  id: string,
  status: 'success' | 'failed',
  resolvedBy: string,
  now: Date,
): Promise<PaymentSessionApi> {
  const updated = await repo.update(tx, tenantId, id, {
    status,
    resolvedBy,
    operationKey: null,
    updatedAt: now,
  });
  if (!updated) throw new AppError('not_found', 'Payment session not found');
  return presentSession(updated as PaymentSessionRow);
}

/** Records a provider's failure after success on the locked session: it stays `success`, its claim cleared. */
export async function recordReversal(
  tx: Queryable,
  tenantId: string,
  id: string,
  reversal: SessionReversal,
  now: Date,
): Promise<PaymentSessionApi> {
  const updated = await repo.update(tx, tenantId, id, { reversal, operationKey: null, updatedAt: now });
  if (!updated) throw new AppError('not_found', 'Payment session not found');
  return presentSession(updated as PaymentSessionRow);
}

/**
 * The sessions paying an order, oldest first, as the order's responses show them: one scalar read,
 * so a single order and its payments are read in one round trip (`readTogether`).
 */
export const orderPaymentsRead: (tenantId: string, orderId: string) => ScalarRead<OrderPaymentView[]> =
  tenantRead(
    paymentSessions,
    {
      select: `coalesce(json_agg(json_build_object('id', id, 'amountCents', amount_cents, 'status', status,
        'refundedCents', refunded_cents, 'reversed', reversal is not null, 'createdAt', created_at)
        order by created_at, id), '[]'::json)`,
      where: 'order_id = ?',
    },
    (value) =>
      (JSON.parse(typeof value === 'string' ? value : JSON.stringify(value ?? [])) as OrderPaymentView[]).map(
        (p) => ({ ...p, createdAt: new Date(p.createdAt).toISOString() }),
      ),
  );

/** What the order's open sessions (pending, processing) ask for: reserved until they resolve. */
export async function openSessionsCents(tx: Queryable, tenantId: string, orderId: string): Promise<number> {
  const [row] = await tx
    .select({ cents: sql<string>`coalesce(sum(${paymentSessions.amountCents}), 0)` })
    .from(paymentSessions)
    .where(
      tenantWhere(
        paymentSessions,
        tenantId,
        eq(paymentSessions.orderId, orderId),
        inArray(paymentSessions.status, ['pending', 'processing']),
      ),
    );
  return Number(row?.cents ?? 0);
}
