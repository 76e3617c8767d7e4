import { eq, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../../../db/client.js';
import { readTogether, type ScalarRead } from '../../../db/read-together.js';
import { tenantWhere } from '../../../db/tenant-scope.js';
import type { UnitOfWork } from '../../../unit-of-work/index.js';
import { type ProductRow, pricingDataFor, pricingDataRead } from '../../catalog/index.js';
import { type SubscriptionStatus, subscriptions } from '../tables.js';

/**
 * Entitlements of a subscription (SPEC section 6): the base product's features merged with those
 * of its live add-ons. A feature value is `true`/`false`, a number (a limit) or `null` (unlimited).
 */

export type EntitlementValue = boolean | number | null;
export type Entitlements = Record<string, EntitlementValue>;

/**
 * One feature granted by two products: `null` (unlimited) wins; two limits add up; two
 * booleans are granted if either grants; a limit and a boolean keep the limit.
 */
export function mergeValue(a: EntitlementValue | undefined, b: EntitlementValue): EntitlementValue {
  if (a === undefined) return b;
  if (a === null || b === null) return null;
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a || b;
  return typeof a === 'number' ? a : b;
}

export function mergeEntitlements(sets: readonly Entitlements[]): Entitlements {
  const out: Entitlements = {};
  for (const set of sets) {
    for (const [feature, value] of Object.entries(set)) out[feature] = mergeValue(out[feature], value);
  }
  return out;
}

export interface ResolvedEntitlements {
  entitlements: Entitlements;
  resolvedFrom: { productId: string; productName: string };
}

/** The `data` of every subscription event (SPEC section 6); `userId` is absent for journey purchases. */
export interface SubscriptionEventData {
  resourceType: 'subscription';
  resourceId: string;
  status: string;
  /** Absent when the entitlement set could not be resolved (unknown, not empty). */
  subscription?: ResolvedEntitlements;
  userId?: string;
}

export function subscriptionEventData(
  subscription: { id: string; status: string },
  resolved: ResolvedEntitlements | null,
  userId: string | null,
): SubscriptionEventData {
  return {
    resourceType: 'subscription',
    resourceId: subscription.id,
    status: subscription.status,
    ...(resolved ? { subscription: resolved } : {}),
    ...(userId ? { userId } : {}),
  };
}

// --- The entitlement set of an account --------------------------------------------------------
//
// An account (organization) is entitled to the merge of what its subscriptions grant: every
// subscription still granting (active, pending_change, pending_cancellation: until cancelled) of
// the organization, an add-on only while its parent grants. Read from committed rows on every
// call: nothing is cached that could be stale (GET /accounts/{id}/entitlements, the check, and
// `entitlements.changed` all use `resolveAccountSet`).

export type GrantingStatus = Exclude<SubscriptionStatus, 'cancelled'>;
export const GRANTING_STATUSES: readonly GrantingStatus[] = [
  'active',
  'pending_change',
  'pending_cancellation',
];
const grants = (r: GrantingSubscription): r is GrantingSubscription & { status: GrantingStatus } =>
  r.status !== 'cancelled';

/** What of a subscription decides what it grants. */
export interface GrantingSubscription {
  id: string;
  parentSubscriptionId: string | null;
  productId: string;
  status: SubscriptionStatus;
}

/** One subscription's part of an account's set: the product's own entitlements. */
export interface Contribution {
  subscriptionId: string;
  parentSubscriptionId: string | null;
  productId: string;
  productName: string;
  status: GrantingStatus;
  entitlements: Entitlements;
}

export interface AccountEntitlements {
  entitlements: Entitlements;
  resolvedFrom: Contribution[];
}

/** The set, or why it is unknown (a product gone or its entitlements unreadable): never empty instead. */
export type AccountResolution =
  | { ok: true; value: AccountEntitlements }
  | { ok: false; subscriptionId: string; productId: string; reason: string };

type ProductEntitlements = Pick<ProductRow, 'id' | 'name' | 'entitlements'>;

const isEntitlementValue = (v: unknown) =>
  v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** Entitlements as stored may have been written by anything (seed, SQL): checked, not trusted. */
function readableEntitlements(value: unknown): value is Entitlements {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every(isEntitlementValue)
  );
}

/** The account's set from its subscriptions (any status) and the products they name. */
export function resolveAccountSet(
  rows: readonly GrantingSubscription[],
  products: ReadonlyMap<string, ProductEntitlements>,
): AccountResolution {
  const granting = rows.filter(grants);
  const live = new Set(granting.map((r) => r.id));
  const resolvedFrom: Contribution[] = [];
  for (const r of granting) {
    if (r.parentSubscriptionId !== null && !live.has(r.parentSubscriptionId)) continue;
    const product = products.get(r.productId);
    if (!product)
      return {
        ok: false,
        subscriptionId: r.id,
        productId: r.productId,
        reason: 'the product no longer exists',
      };
    if (!readableEntitlements(product.entitlements))
      return {
        ok: false,
        subscriptionId: r.id,
        productId: r.productId,
        reason: 'the product’s entitlements are unreadable',
      };
    resolvedFrom.push({
      subscriptionId: r.id,
      parentSubscriptionId: r.parentSubscriptionId,
      productId: product.id,
      productName: product.name,
      status: r.status,
      entitlements: product.entitlements,
    });
  }
  return {
    ok: true,
    value: { entitlements: mergeEntitlements(resolvedFrom.map((c) => c.entitlements)), resolvedFrom },
  };
}

/** The organization's granting subscriptions, oldest first, as one JSON value (`readTogether`). */
export function accountSubscriptionsRead(
  tenantId: string,
  accountId: string,
): ScalarRead<GrantingSubscription[]> {
  const s = subscriptions;
  return {
    query: sql`select coalesce(json_agg(json_build_object('id', ${s.id}, 'parentSubscriptionId',
        ${s.parentSubscriptionId}, 'productId', ${s.productId}, 'status', ${s.status})
        order by ${s.createdAt}, ${s.id}), '[]') from ${s}
      where ${tenantWhere(s, tenantId, eq(s.organizationId, accountId), inArray(s.status, [...GRANTING_STATUSES]))}`,
    decode: (value) => value as GrantingSubscription[],
  };
}

const productMap = (products: readonly ProductEntitlements[]) => new Map(products.map((p) => [p.id, p]));
const unique = (ids: readonly string[]) => [...new Set(ids)];

/**
 * Reads and resolves an account's set. `likelyProductIds` (the products the account's set named
 * last time) are read in the same round trip as the subscriptions; any other product is read after.
 * A wrong guess costs a round trip, never a stale answer. Returns the product ids the set named.
 */
export async function readAccountEntitlements(
  db: Queryable,
  tenantId: string,
  accountId: string,
  likelyProductIds: readonly string[] = [],
): Promise<{ resolution: AccountResolution; productIds: string[] }> {
  const subs = accountSubscriptionsRead(tenantId, accountId);
  const [rows, guessed] =
    likelyProductIds.length > 0
      ? await readTogether(db, [subs, pricingDataRead(tenantId, likelyProductIds)])
      : [(await readTogether(db, [subs]))[0], null];
  const productIds = unique(rows.map((r) => r.productId));
  const unread = productIds.filter((id) => !likelyProductIds.includes(id));
  const products = [
    ...(guessed?.products ?? []),
    ...(unread.length > 0 ? (await pricingDataFor(db, tenantId, unread)).products : []),
  ];
  return { resolution: resolveAccountSet(rows, productMap(products)), productIds };
}

// --- entitlements.changed ---------------------------------------------------------------------

/** A subscription row as a unit of work changed it: before (null: created by it) and after. */
type Row = GrantingSubscription & { organizationId: string | null };
export type SubscriptionChange = readonly [before: Row | null, after: Row];

/** What each unit of work last knew of an account's set, so one change is announced once. */
const knownInUnit = new WeakMap<object, Map<string, AccountResolution>>();

function sameSet(a: AccountResolution, b: AccountResolution): boolean {
  if (!a.ok || !b.ok) return a.ok === b.ok;
  const x = a.value.entitlements;
  const y = b.value.entitlements;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => Object.hasOwn(y, k) && x[k] === y[k]);
}

/** `data` of `entitlements.changed`; without `entitlements` when the set is unknown (SPEC section 6). */
export function entitlementsChangedData(accountId: string, resolution: AccountResolution) {
  return resolution.ok
    ? { accountId, entitlements: resolution.value.entitlements, resolvedFrom: resolution.value.resolvedFrom }
    : { accountId };
}

/**
 * Called right after a `subscription.*` event, in the same unit of work: emits
 * `entitlements.changed` for each account whose set the unit's `changes` changed, and only then.
 * The set before is the set now with the changed rows put back as they were; a second call in the
 * same unit compares with what the first one saw (a cancellation with its add-ons: one event).
 */
export async function emitEntitlementsChanged(
  u: UnitOfWork,
  changes: readonly SubscriptionChange[],
): Promise<void> {
  const known = knownInUnit.get(u.tx) ?? new Map<string, AccountResolution>();
  knownInUnit.set(u.tx, known);
  const accounts = unique(
    changes.flatMap(([, after]) => (after.organizationId ? [after.organizationId] : [])),
  );
  for (const accountId of accounts) {
    const mine = changes.filter(([, after]) => after.organizationId === accountId);
    const [rows] = await readTogether(u.tx, [accountSubscriptionsRead(u.ctx.tenantId, accountId)]);
    const changed = new Set(mine.map(([, after]) => after.id));
    const rowsBefore = [
      ...rows.filter((r) => !changed.has(r.id)),
      ...mine.flatMap(([before]) => (before ? [before] : [])),
    ];
    const ids = unique([...rows, ...rowsBefore].map((r) => r.productId));
    const products = productMap((await pricingDataFor(u.tx, u.ctx.tenantId, ids)).products);
    const after = resolveAccountSet(rows, products);
    const before = known.get(accountId) ?? resolveAccountSet(rowsBefore, products);
    known.set(accountId, after);
    if (!sameSet(before, after))
      await u.emit('entitlements.changed', entitlementsChangedData(accountId, after));
  }
}

/**
 * After a product's entitlements were edited in unit `u`: `entitlements.changed` for each account
 * with a granting subscription of it whose merged set that changed. Two reads whatever the number
 * of accounts: their granting subscriptions, and the products those name.
 */
export async function emitProductEntitlementsChanged(
  u: UnitOfWork,
  change: { before: ProductEntitlements; after: ProductEntitlements },
): Promise<void> {
  if (JSON.stringify(change.before.entitlements) === JSON.stringify(change.after.entitlements)) return;
  const s = subscriptions;
  const granting = inArray(s.status, [...GRANTING_STATUSES]);
  const holders = u.tx
    .select({ organizationId: s.organizationId })
    .from(s)
    .where(tenantWhere(s, u.ctx.tenantId, eq(s.productId, change.after.id), granting));
  const rows = await u.tx
    .select({
      id: s.id,
      parentSubscriptionId: s.parentSubscriptionId,
      productId: s.productId,
      status: s.status,
      organizationId: s.organizationId,
    })
    .from(s)
    .where(tenantWhere(s, u.ctx.tenantId, granting, inArray(s.organizationId, holders)))
    .orderBy(s.createdAt, s.id);
  if (rows.length === 0) return;
  const after = productMap(
    (await pricingDataFor(u.tx, u.ctx.tenantId, unique(rows.map((r) => r.productId)))).products,
  );
  const before = new Map(after).set(change.before.id, change.before);
  const byAccount = new Map<string, typeof rows>();
  for (const r of rows) {
    const accountId = r.organizationId as string;
    byAccount.get(accountId)?.push(r) ?? byAccount.set(accountId, [r]);
  }
  for (const [accountId, held] of byAccount) {
    const now = resolveAccountSet(held, after);
    if (!sameSet(resolveAccountSet(held, before), now))
      await u.emit('entitlements.changed', entitlementsChangedData(accountId, now));
  }
}

/**
 * A cancellation's changes: the subscription (`before` -> `after`) and the add-ons it ended, which
 * were live before (only live add-ons are ended) and kept their product.
 */
export const cancellationChanges = (
  before: Row,
  after: Row,
  endedAddOns: readonly Row[],
): SubscriptionChange[] => [
  [before, after],
  ...endedAddOns.map((a): SubscriptionChange => [{ ...a, status: 'active' }, a]),
];
