import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import { uuidv7 } from 'uuidv7';
import type { BillingPaymentMethodSchema } from '../../billing/schemas.js';
import { iso } from '../../core/format.js';
import type { Queryable, Tx } from '../../db/client.js';
import { tenantRepo } from '../../db/tenant-repo.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { CreatePaymentMethodBody, PaymentMethodSchema } from './schemas.js';
import { paymentMethods } from './tables.js';

export type PaymentMethodApi = Static<typeof PaymentMethodSchema>;
type PaymentMethodRow = typeof paymentMethods.$inferSelect;
type CreateInput = Static<typeof CreatePaymentMethodBody>;

const repo = tenantRepo(paymentMethods);

export function presentPaymentMethod(row: PaymentMethodRow): PaymentMethodApi {
  return {
    id: row.id,
    accountId: row.accountId,
    type: row.type,
    cardType: row.cardType,
    lastFour: row.lastFour,
    expirationMonth: row.expirationMonth,
    expirationYear: row.expirationYear,
    isDefault: row.isDefault,
    source: 'local',
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** A local reference in the shape of the account payment-method list, beside the billing system's. */
function presentAsAccountPaymentMethod(row: PaymentMethodRow): Static<typeof BillingPaymentMethodSchema> {
  return {
    id: row.id,
    type: row.type,
    cardType: row.cardType,
    lastFour: row.lastFour,
    expirationMonth: row.expirationMonth,
    expirationYear: row.expirationYear,
    isDefault: row.isDefault,
    source: 'local',
  };
}

/**
 * Serialises every change to one account's defaults until the transaction ends: without it two
 * first creates could both see no default, or two set-defaults could each clear the other's row.
 */
async function lockAccount(tx: Tx, tenantId: string, accountId: string): Promise<void> {
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtext(${`payment-methods:${tenantId}:${accountId}`}))`,
  );
}

async function hasDefault(tx: Tx, tenantId: string, accountId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: paymentMethods.id })
    .from(paymentMethods)
    .where(
      tenantWhere(
        paymentMethods,
        tenantId,
        and(eq(paymentMethods.accountId, accountId), eq(paymentMethods.isDefault, true)),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** Stores a reference; it is the account's default when the account has none yet (its first). */
export async function insertPaymentMethod(
  tx: Tx,
  tenantId: string,
  input: CreateInput,
  now: Date,
): Promise<PaymentMethodApi> {
  await lockAccount(tx, tenantId, input.accountId);
  const row = await repo.insert(tx, tenantId, {
    id: uuidv7(),
    accountId: input.accountId,
    type: input.type ?? 'card',
    cardType: input.cardType ?? null,
    lastFour: input.lastFour ?? '0000',
    expirationMonth: input.expirationMonth ?? null,
    expirationYear: input.expirationYear ?? null,
    isDefault: !(await hasDefault(tx, tenantId, input.accountId)),
    createdAt: now,
    updatedAt: now,
  });
  return presentPaymentMethod(row);
}

export async function getPaymentMethod(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<PaymentMethodApi | undefined> {
  const row = await repo.get(db, tenantId, id);
  return row && presentPaymentMethod(row);
}

export interface SetDefaultResult {
  method: PaymentMethodApi;
  /** False when the method already was the default (nothing written). */
  changed: boolean;
  /** The account's default before this call, when it was another method. */
  previousDefaultId: string | null;
}

/** Makes the method its account's only default; undefined when it is not this tenant's. */
export async function setDefaultPaymentMethod(
  tx: Tx,
  tenantId: string,
  id: string,
  now: Date,
): Promise<SetDefaultResult | undefined> {
  const found = await repo.get(tx, tenantId, id);
  if (!found) return undefined;
  // accountId never changes, so the lock taken on it covers the row read again below.
  await lockAccount(tx, tenantId, found.accountId);
  const current = await repo.get(tx, tenantId, id);
  if (!current) return undefined;
  if (current.isDefault)
    return { method: presentPaymentMethod(current), changed: false, previousDefaultId: null };
  const cleared = await tx
    .update(paymentMethods)
    .set({ isDefault: false, updatedAt: now })
    .where(
      tenantWhere(
        paymentMethods,
        tenantId,
        and(
          eq(paymentMethods.accountId, current.accountId),
          eq(paymentMethods.isDefault, true),
          ne(paymentMethods.id, id),
        ),
      ),
    )
    .returning({ id: paymentMethods.id });
  const updated = await repo.update(tx, tenantId, id, { isDefault: true, updatedAt: now });
  if (!updated) return undefined;
  return { method: presentPaymentMethod(updated), changed: true, previousDefaultId: cleared[0]?.id ?? null };
}

/**
 * The tenant's local references held under any of `accountIds`, newest first, in the shape of
 * GET /accounts/{id}/payment-methods (`source: 'local'`).
 */
export async function localAccountPaymentMethods(
  db: Queryable,
  tenantId: string,
  accountIds: string[],
): Promise<Static<typeof BillingPaymentMethodSchema>[]> {
  const ids = [...new Set(accountIds)];
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(paymentMethods)
    .where(tenantWhere(paymentMethods, tenantId, inArray(paymentMethods.accountId, ids)))
    .orderBy(desc(paymentMethods.createdAt), desc(paymentMethods.id));
  return rows.map(presentAsAccountPaymentMethod);
}
