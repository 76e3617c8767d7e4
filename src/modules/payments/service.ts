import { and, desc, eq } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { type BillingAdapter, type Invoice, presentInvoice } from '../../billing/index.js';
import { AppError } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import type { Queryable } from '../../db/client.js';
import { tenantRepo } from '../../db/tenant-repo.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { Mutation } from '../../http/mutation.js';
import { type PaymentStatus, paymentSessions, TERMINAL_STATUSES } from './tables.js';

export type PaymentSessionRow = typeof paymentSessions.$inferSelect;

export interface PaymentSessionApi {
  id: string;
  tenantId: string;
  accountId: string;
  amountCents: number;
  currency: string;
  status: PaymentStatus;
  invoiceId: string | null;
  paymentPageSlug: string | null;
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
    paymentPageSlug: row.paymentPageSlug,
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

export async function listSessions(
  db: Queryable,
  tenantId: string,
  filters: { accountId?: string; status?: string },
) {
  return db
    .select()
    .from(paymentSessions)
    .where(
      tenantWhere(
        paymentSessions,
        tenantId,
        and(
          filters.accountId ? eq(paymentSessions.accountId, filters.accountId) : undefined,
          filters.status ? eq(paymentSessions.status, filters.status as PaymentStatus) : undefined,
        ),
      ),
    )
    .orderBy(desc(paymentSessions.createdAt), desc(paymentSessions.id));
}

export interface NewSession {
  accountId: string;
  amountCents: number;
  currency: string;
  invoiceId: string | null;
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

/** The settlement idempotency key of a session: `complete` and a provider event settle once. */
export const settlementKey = (sessionId: string) => `payment-session:${sessionId}`;

/**
 * Settles the invoice a session pays, in the billing system, before our transaction. Idempotent
 * by the session id, so `complete` racing a provider event settles once. A refusal (invoice no
 * longer open, amount over the balance) is 409 and the session stays as it is.
 */
export async function settleSessionInvoice(
  adapter: BillingAdapter | null,
  session: PaymentSessionRow,
): Promise<Invoice | null> {
  if (!session.invoiceId) return null;
  if (!adapter)
    throw new AppError(
      'conflict',
      'The session pays an invoice but the tenant has no active billing integration',
    );
  const result = await adapter.settleInvoice(session.invoiceId, {
    amountCents: session.amountCents,
    currency: session.currency,
    paymentReference: session.id,
    idempotencyKey: settlementKey(session.id),
  });
  if (!result.ok) {
    throw new AppError('conflict', `The billing system refused the settlement: ${result.failure.message}`);
  }
  return result.value;
}

/**
 * Moves a session to a terminal `outcome` inside the mutation's transaction, with its events:
 * `payment.succeeded` (+ `invoice.paid` when the settled invoice is now paid), or
 * `payment.failed` (+ `invoice.failed` for an invoice payment). The row is locked first, so of
 * two racers exactly one transitions; the other gets `{ changed: false }`.
 */
export async function resolveSession(
  m: Mutation,
  sessionId: string,
  outcome: 'success' | 'failed',
  resolvedBy: string,
  settled: Invoice | null,
): Promise<{ changed: boolean; session: PaymentSessionApi }> {
  const row = await getSession(m.tx, m.ctx.tenantId, sessionId, true);
  if (!row) throw new AppError('not_found', 'Payment session not found');
  if (isTerminal(row.status)) return { changed: false, session: presentSession(row) };
  const updated = await repo.update(m.tx, m.ctx.tenantId, sessionId, {
    status: outcome,
    resolvedBy,
    updatedAt: m.now,
  });
  const session = presentSession(updated as PaymentSessionRow);
  if (outcome === 'success') {
    await m.emit('payment.succeeded', session);
    if (settled?.status === 'paid')
      await m.emit('invoice.paid', {
        resourceType: 'invoice',
        resourceId: settled.id,
        invoice: presentInvoice(settled),
        paymentSessionId: sessionId,
      });
  } else {
    await m.emit('payment.failed', session);
    if (session.invoiceId)
      await m.emit('invoice.failed', {
        resourceType: 'invoice',
        resourceId: session.invoiceId,
        paymentSessionId: sessionId,
      });
  }
  return { changed: true, session };
}
