import { and, desc, eq, isNull, lte, ne, or, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import { AppError } from '../../core/errors.js';
import { iso, isoOrNull } from '../../core/format.js';
import type { PageRequest } from '../../core/paging.js';
import type { Queryable } from '../../db/client.js';
import { rowsAfter } from '../../db/keyset.js';
import { tagsMatch } from '../../db/tags.js';
import { tenantRepo } from '../../db/tenant-repo.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { pricingDataFor } from '../catalog/index.js';
import { billedAheadUntil } from './amounts/figures.js';
import { type Entitlements, mergeEntitlements, type ResolvedEntitlements } from './entitlements/grants.js';
import type { SubscriptionSchema } from './schemas.js';
import { type SubscriptionStatus, subscriptions } from './tables.js';

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type NewSubscriptionRow = Omit<typeof subscriptions.$inferInsert, 'tenantId'>;
export type SubscriptionApi = Static<typeof SubscriptionSchema>;

const repo = tenantRepo(subscriptions);

/** Statuses in which a subscription still runs (and bills). */
export const isLive = (status: SubscriptionStatus) => status !== 'cancelled';

export function presentSubscription(row: SubscriptionRow): SubscriptionApi {
  return {
    id: row.id,
    tenantId: row.tenantId,
    productId: row.productId,
    productName: row.productName,
    parentSubscriptionId: row.parentSubscriptionId,
    contactId: row.contactId,
    organizationId: row.organizationId,
    orderId: row.orderId,
    billingAccountId: row.billingAccountId,
    billingSubscriptionId: row.billingSubscriptionId,
    quantity: row.quantity,
    priceCents: row.priceCents,
    currency: row.currency,
    billingInterval: row.billingInterval,
    status: row.status,
    currentPeriodStart: iso(row.currentPeriodStart),
    currentPeriodEnd: iso(row.currentPeriodEnd),
    billedThrough: iso(billedAheadUntil(row) ?? row.currentPeriodEnd),
    pendingChange: row.pendingChange,
    cancelledAt: isoOrNull(row.cancelledAt),
    version: row.version,
    tags: row.tags,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

export async function getSubscription(
  db: Queryable,
  tenantId: string,
  id: string,
  lock = false,
): Promise<SubscriptionRow | undefined> {
  const query = db
    .select()
    .from(subscriptions)
    .where(tenantWhere(subscriptions, tenantId, eq(subscriptions.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function listSubscriptions(
  db: Queryable,
  tenantId: string,
  filters: {
    status?: string | undefined;
    accountId?: string | undefined;
    orderId?: string | undefined;
    parentSubscriptionId?: string | undefined;
    tag?: string[] | undefined;
  },
  page: PageRequest | null = null,
): Promise<SubscriptionRow[]> {
  const account = filters.accountId;
  const query = db
    .select()
    .from(subscriptions)
    .where(
      tenantWhere(
        subscriptions,
        tenantId,
        and(
          filters.status ? eq(subscriptions.status, filters.status as SubscriptionStatus) : undefined,
          account
            ? UUID.test(account)
              ? or(eq(subscriptions.organizationId, account), eq(subscriptions.billingAccountId, account))
              : eq(subscriptions.billingAccountId, account)
            : undefined,
          filters.orderId ? eq(subscriptions.orderId, filters.orderId) : undefined,
          filters.parentSubscriptionId
            ? eq(subscriptions.parentSubscriptionId, filters.parentSubscriptionId)
            : undefined,
          tagsMatch(subscriptions.tags, filters.tag),
          page?.after ? rowsAfter([subscriptions.createdAt, subscriptions.id], page.after, true) : undefined,
        ),
      ),
    )
    .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id));
  return page ? query.limit(page.limit + 1) : query;
}

/** Live add-ons of `parentId`. */
export async function liveAddOns(
  db: Queryable,
  tenantId: string,
  parentId: string,
): Promise<SubscriptionRow[]> {
  return db
    .select()
    .from(subscriptions)
    .where(
      tenantWhere(
        subscriptions,
        tenantId,
        eq(subscriptions.parentSubscriptionId, parentId),
        ne(subscriptions.status, 'cancelled'),
      ),
    )
    .orderBy(subscriptions.createdAt, subscriptions.id);
}

/** The subscription made for `orderId` and `productId`, if any: one per order and product. */
export async function subscriptionForOrder(
  db: Queryable,
  tenantId: string,
  orderId: string,
  productId: string,
) {
  const [row] = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(
      tenantWhere(
        subscriptions,
        tenantId,
        eq(subscriptions.orderId, orderId),
        eq(subscriptions.productId, productId),
      ),
    );
  return row;
}

export async function insertSubscription(tx: Queryable, tenantId: string, row: NewSubscriptionRow) {
  // A second local row for one billing subscription, or a second subscription of an order to one
  // product (two racing requests): the unique indexes refuse it.
  const [inserted] = await tx
    .insert(subscriptions)
    .values({ ...row, tenantId })
    .onConflictDoNothing()
    .returning();
  if (!inserted)
    throw new AppError(
      'conflict',
      'This subscription already exists (same billing subscription, or same order and product)',
    );
  return inserted;
}

export async function updateSubscription(
  tx: Queryable,
  tenantId: string,
  id: string,
  patch: Partial<NewSubscriptionRow>,
): Promise<SubscriptionRow> {
  const row = await repo.update(tx, tenantId, id, patch);
  if (!row) throw new AppError('not_found', 'Subscription not found');
  return row;
}

/**
 * Claims the subscription for one operation with billing calls, in the transaction that commits the
 * operation's intent: only at `version`, and only when no other operation holds it (the same
 * operation, retried, takes it again). The operation's commit gives it back, as does its intent
 * closing without effect; an operation left pending keeps it until a retry or the reconciler
 * finishes it, so nothing else changes the subscription meanwhile. False: 409 for the caller.
 */
export async function claimOperation(
  db: Queryable,
  tenantId: string,
  id: string,
  version: number,
  key: string,
  now: Date,
): Promise<boolean> {
  const rows = await db
    .update(subscriptions)
    .set({ operationKey: key, operationAt: now })
    .where(
      tenantWhere(
        subscriptions,
        tenantId,
        eq(subscriptions.id, id),
        eq(subscriptions.version, version),
        or(isNull(subscriptions.operationKey), eq(subscriptions.operationKey, key)),
      ),
    )
    .returning({ id: subscriptions.id });
  return rows.length > 0;
}

/** Gives the claim of operation `key` back (its intent closed without taking effect). */
export async function releaseOperation(db: Queryable, tenantId: string, id: string, key: string) {
  await db
    .update(subscriptions)
    .set({ operationKey: null, operationAt: null })
    .where(
      tenantWhere(subscriptions, tenantId, eq(subscriptions.id, id), eq(subscriptions.operationKey, key)),
    );
}

/**
 * Locks the row in the unit of work and checks it is still the version the change was computed
 * on, held by this change's operation (`key`), or by none when the change has no billing calls
 * (`key` null): else 409.
 */
export async function lockForChange(
  tx: Queryable,
  tenantId: string,
  id: string,
  version: number,
  key: string | null,
): Promise<SubscriptionRow> {
  const row = await getSubscription(tx, tenantId, id, true);
  if (!row) throw new AppError('not_found', 'Subscription not found');
  if (row.version !== version || row.operationKey !== key) {
    throw new AppError(
      'conflict',
      'The subscription changed meanwhile, or another change of it is in progress; read it again and retry',
    );
  }
  return row;
}

/**
 * The entitlement set of the subscription tree of `base` (a subscription without a parent):
 * its product's entitlements merged with those of its live add-ons; `resolvedFrom` is always the
 * base product. Null when a product is gone: the set is then unknown.
 */
export async function resolveEntitlements(
  db: Queryable,
  tenantId: string,
  base: SubscriptionRow,
  extraAddOnProductIds: readonly string[] = [],
): Promise<ResolvedEntitlements | null> {
  const addOns = isLive(base.status) ? await liveAddOns(db, tenantId, base.id) : [];
  const addOnIds = [...addOns.map((a) => a.productId), ...extraAddOnProductIds];
  const { products } = await pricingDataFor(db, tenantId, [base.productId, ...addOnIds]);
  const byId = new Map(products.map((p) => [p.id, p]));
  const product = byId.get(base.productId);
  if (!product) return null;
  const sets: Entitlements[] = [product.entitlements];
  for (const id of addOnIds) {
    const addOn = byId.get(id);
    if (!addOn) return null;
    sets.push(addOn.entitlements);
  }
  return {
    entitlements: mergeEntitlements(sets),
    resolvedFrom: { productId: product.id, productName: product.name },
  };
}

/** The base of a subscription's tree: its parent for an add-on, else itself. */
export async function baseOf(
  db: Queryable,
  tenantId: string,
  row: SubscriptionRow,
): Promise<SubscriptionRow> {
  if (!row.parentSubscriptionId) return row;
  return (await getSubscription(db, tenantId, row.parentSubscriptionId)) ?? row;
}

/**
 * Subscriptions due at `now` (period ended, still live), oldest first. The scheduler's scan spans
 * tenants; `tenantId` narrows it to one (tests sharing a database use it).
 */
export async function dueSubscriptions(db: Queryable, now: Date, limit: number, tenantId?: string) {
  return (
    db
      .select({ tenantId: subscriptions.tenantId, id: subscriptions.id })
      .from(subscriptions)
      .where(
        and(
          lte(subscriptions.currentPeriodEnd, now),
          ne(subscriptions.status, 'cancelled'),
          tenantId ? eq(subscriptions.tenantId, tenantId) : undefined,
        ),
      )
      // Bases before their add-ons at the same period end: ending a base ends what its add-ons
      // gave in one `entitlements.changed`, and the add-ons' own ends after it change nothing.
      // The id makes the order the same on every run and every database.
      .orderBy(
        subscriptions.currentPeriodEnd,
        sql`${subscriptions.parentSubscriptionId} is not null`,
        subscriptions.id,
      )
      .limit(limit)
  );
}
