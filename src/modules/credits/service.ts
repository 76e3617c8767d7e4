import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { iso } from '../../core/format.js';
import type { PageRequest } from '../../core/paging.js';
import { type Queryable, rowsOf } from '../../db/client.js';
import { rowsAfter } from '../../db/keyset.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { UnitOfWork } from '../../unit-of-work/index.js';
import { type CreditEntryKind, type CreditEntryStatus, creditEntries } from './tables.js';

// The ledger's reads and writes. Every change to one account's ledger in one currency runs under
// one lock (`lockLedger`, a transaction-scoped advisory lock): grants, applications and expiries
// of the same balance never interleave, so the balance read under it is the one the write follows.

export type CreditEntryRow = typeof creditEntries.$inferSelect;

export interface CreditEntryApi {
  id: string;
  accountId: string;
  currency: string;
  amountCents: number;
  kind: CreditEntryKind;
  status: CreditEntryStatus;
  reason: string;
  invoiceId: string | null;
  sourceType: string | null;
  sourceId: string | null;
  remainingCents: number | null;
  expiresAt: string | null;
  createdAt: string;
}

export function presentEntry(r: CreditEntryRow): CreditEntryApi {
  return {
    id: r.id,
    accountId: r.organizationId,
    currency: r.currency,
    amountCents: r.amountCents,
    kind: r.kind,
    status: r.status,
    reason: r.reason,
    invoiceId: r.invoiceId,
    sourceType: r.sourceType,
    sourceId: r.sourceId,
    remainingCents: r.kind === 'grant' ? r.remainingCents : null,
    expiresAt: r.expiresAt ? iso(r.expiresAt) : null,
    createdAt: iso(r.createdAt),
  };
}

export interface Balance {
  currency: string;
  balanceCents: number;
}

/** Serialises the changes of one account's ledger in one currency, until the transaction ends. */
export async function lockLedger(q: Queryable, tenantId: string, accountId: string, currency: string) {
  await q.execute(
    sql`select pg_advisory_xact_lock(hashtext(${`credits:${tenantId}:${accountId}:${currency}`}))`,
  );
}

/**
 * What of an account's entries can be spent at `now`: their sum, less what remains of grants whose
 * `expiresAt` has come (inclusive). An expired grant counts nowhere from `expiresAt` on, whether
 * or not the expiry sweep has written its `expiry` entry yet (once it has, the grant keeps nothing
 * and the entry takes its part away). Unqualified columns, so that the raw SQL of
 * `autoApplyTarget` sums the same way.
 */
const spendableSum = (now: Date) =>
  sql<
    string | null
  >`(sum(amount_cents) - coalesce(sum(remaining_cents) filter (where expires_at <= ${now.toISOString()}::timestamptz), 0))`;

/** A grant that still counts at `now`: no expiry, or one still ahead. */
const unexpiredAt = (now: Date) =>
  sql`(${creditEntries.expiresAt} is null or ${creditEntries.expiresAt} > ${now.toISOString()}::timestamptz)`;

/** The balance per currency at `now` (pending applications included, expired grants not). */
export async function balancesOf(
  q: Queryable,
  tenantId: string,
  accountId: string,
  now: Date,
): Promise<Balance[]> {
  const rows = await q
    .select({ currency: creditEntries.currency, cents: spendableSum(now) })
    .from(creditEntries)
    .where(tenantWhere(creditEntries, tenantId, eq(creditEntries.organizationId, accountId)))
    .groupBy(creditEntries.currency)
    .orderBy(creditEntries.currency);
  return rows.map((r) => ({ currency: r.currency, balanceCents: Number(r.cents ?? 0) }));
}

/** The balance in one currency at `now`; read under the ledger lock before spending it. */
export async function balanceIn(
  q: Queryable,
  tenantId: string,
  accountId: string,
  currency: string,
  now: Date,
) {
  const [row] = await q
    .select({ cents: spendableSum(now) })
    .from(creditEntries)
    .where(
      tenantWhere(
        creditEntries,
        tenantId,
        eq(creditEntries.organizationId, accountId),
        eq(creditEntries.currency, currency),
      ),
    );
  return Number(row?.cents ?? 0);
}

/** The account's entries, newest first; with a page, `limit + 1` rows after its key. */
export function listEntries(q: Queryable, tenantId: string, accountId: string, page: PageRequest | null) {
  const query = q
    .select()
    .from(creditEntries)
    .where(
      tenantWhere(
        creditEntries,
        tenantId,
        and(
          eq(creditEntries.organizationId, accountId),
          page?.after ? rowsAfter([creditEntries.createdAt, creditEntries.id], page.after, true) : undefined,
        ),
      ),
    )
    .orderBy(desc(creditEntries.createdAt), desc(creditEntries.id));
  return page ? query.limit(page.limit + 1) : query;
}

export interface NewEntry {
  accountId: string;
  currency: string;
  amountCents: number;
  kind: CreditEntryKind;
  status?: CreditEntryStatus;
  reason: string;
  invoiceId?: string | null;
  sourceType?: string | null;
  sourceId?: string | null;
  expiresAt?: Date | null;
}

export async function insertEntry(q: Queryable, tenantId: string, entry: NewEntry, now: Date) {
  const row: CreditEntryRow = {
    tenantId,
    id: uuidv7(),
    organizationId: entry.accountId,
    currency: entry.currency,
    amountCents: entry.amountCents,
    kind: entry.kind,
    status: entry.status ?? 'posted',
    reason: entry.reason,
    invoiceId: entry.invoiceId ?? null,
    sourceType: entry.sourceType ?? null,
    sourceId: entry.sourceId ?? null,
    remainingCents: entry.kind === 'grant' ? entry.amountCents : 0,
    expiresAt: entry.expiresAt ?? null,
    createdAt: now,
  };
  await q.insert(creditEntries).values(row);
  return row;
}

/**
 * In a unit of work: grants credit (`credit.granted`, audit `credit.grant`). Used by the grant
 * operation and by the subscription changes that give money back as credit.
 */
export async function grant(
  u: UnitOfWork,
  entry: Omit<NewEntry, 'kind' | 'status'>,
): Promise<CreditEntryApi> {
  await lockLedger(u.tx, u.ctx.tenantId, entry.accountId, entry.currency);
  const granted = presentEntry(await insertEntry(u.tx, u.ctx.tenantId, { ...entry, kind: 'grant' }, u.now));
  await u.audit({
    action: 'credit.grant',
    resourceType: 'credit_entry',
    resourceId: granted.id,
    details: { accountId: granted.accountId, amountCents: granted.amountCents, currency: granted.currency },
  });
  await u.emit('credit.granted', granted);
  return granted;
}

/** What an application took from each grant, so that undoing it gives the same back. */
export type Spent = { grantId: string; cents: number }[];

/**
 * Takes `cents` from the grants that still have something and have not expired at `now`, those
 * expiring first (then the oldest), under the ledger lock. The caller checked the balance covers it.
 */
export async function spendGrants(
  q: Queryable,
  tenantId: string,
  accountId: string,
  currency: string,
  cents: number,
  now: Date,
): Promise<Spent> {
  const grants = await q
    .select({ id: creditEntries.id, remaining: creditEntries.remainingCents })
    .from(creditEntries)
    .where(
      tenantWhere(
        creditEntries,
        tenantId,
        eq(creditEntries.organizationId, accountId),
        eq(creditEntries.currency, currency),
        sql`${creditEntries.remainingCents} > 0`,
        unexpiredAt(now),
      ),
    )
    .orderBy(
      sql`${creditEntries.expiresAt} asc nulls last`,
      asc(creditEntries.createdAt),
      asc(creditEntries.id),
    );
  const spent: Spent = [];
  let left = cents;
  for (const g of grants) {
    if (left === 0) break;
    const take = Math.min(left, g.remaining);
    spent.push({ grantId: g.id, cents: take });
    left -= take;
  }
  await adjustRemaining(q, tenantId, spent, -1);
  return spent;
}

/** Moves what `spent` took back into (`+1`) or out of (`-1`) its grants. */
export async function adjustRemaining(q: Queryable, tenantId: string, spent: Spent, sign: 1 | -1) {
  for (const s of spent)
    await q
      .update(creditEntries)
      .set({ remainingCents: sql`${creditEntries.remainingCents} + ${sign * s.cents}` })
      .where(tenantWhere(creditEntries, tenantId, eq(creditEntries.id, s.grantId)));
}

/**
 * When the tenant applies credit on issue and an account is linked to the invoice's billing
 * account: that account, its balance in the invoice's currency at `now`, and whether credit was
 * applied to the invoice before; null otherwise. One round trip. Every table names the tenant, so on Citus
 * the whole read runs on the tenant's node.
 */
export async function autoApplyTarget(
  q: Queryable,
  tenantId: string,
  invoice: { id: string; accountId: string; currency: string },
  now: Date,
): Promise<{ accountId: string; balanceCents: number; appliedBefore: boolean } | null> {
  const [row] = rowsOf<{ id: string; balance: string | null; applied: boolean }>(
    await q.execute(sql`
      select o.id,
        (select ${spendableSum(now)} from credit_entries c
          where c.tenant_id = ${tenantId}::uuid and c.organization_id = o.id and c.currency = ${invoice.currency}) as balance,
        exists (select 1 from credit_entries c
          where c.tenant_id = ${tenantId}::uuid and c.organization_id = o.id and c.invoice_id = ${invoice.id}) as applied
      from tenants t join organizations o on o.tenant_id = t.id and o.external_id = ${invoice.accountId}
      where t.id = ${tenantId}::uuid and o.tenant_id = ${tenantId}::uuid and t.auto_apply_credits
      limit 1`),
  );
  return row
    ? { accountId: row.id, balanceCents: Number(row.balance ?? 0), appliedBefore: Boolean(row.applied) }
    : null;
}
