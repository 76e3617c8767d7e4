import { desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import { uuidv7 } from 'uuidv7';
import type { BillingAccount, BillingAdapter } from '../../billing/adapter.js';
import { unwrapBilling } from '../../billing/http.js';
import type { BillingRegistry } from '../../billing/registry.js';
import { next } from '../../core/actions.js';
import { AppError, notFound, validationFailed } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import type { PageRequest } from '../../core/paging.js';
import type { Queryable } from '../../db/client.js';
import { rowsAfter } from '../../db/keyset.js';
import { tagsMatch } from '../../db/tags.js';
import { tenantRepo } from '../../db/tenant-repo.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { AccountCreate, AccountSchema, AccountUpdate } from './schemas.js';
import { organizations } from './tables.js';

export type AccountApi = Static<typeof AccountSchema>;
type CreateInput = Static<typeof AccountCreate>;
type UpdateInput = Static<typeof AccountUpdate>;
export type OrganizationRow = typeof organizations.$inferSelect;

/** What account lookups need: the database and the tenant's billing integration. */
export interface AccountDeps {
  db: Queryable;
  billing: Pick<BillingRegistry, 'forTenant'>;
}

const repo = tenantRepo(organizations);

// Organization ids are UUIDs; anything else cannot be a local account (and must not reach a uuid column).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isOrganizationId = (id: string) => UUID.test(id);

export function presentAccount(row: OrganizationRow): AccountApi {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    externalId: row.externalId,
    email: row.email,
    phone: row.phone,
    website: row.website,
    industry: row.industry,
    tags: row.tags,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** `%`, `_` and `\` stand for themselves in the search, not for LIKE's wildcards. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * `q` of GET /accounts: the name or the email contains it, whatever the case. The trigram indexes
 * (gin_trgm_ops) serve a `q` of three characters or more; a shorter one reads the tenant's rows.
 */
function nameOrEmailContains(q: string): SQL {
  const pattern = `%${likeLiteral(q)}%`;
  return sql`(${organizations.name} ilike ${pattern} or ${organizations.email} ilike ${pattern})`;
}

/** GET /accounts: the tenant-owned accounts, newest first; with a page, `limit + 1` rows after its key. */
export async function listAccounts(
  db: Queryable,
  tenantId: string,
  filters: { q?: string | undefined; tag?: string[] | undefined },
  page: PageRequest | null = null,
): Promise<OrganizationRow[]> {
  const query = db
    .select()
    .from(organizations)
    .where(
      tenantWhere(
        organizations,
        tenantId,
        tagsMatch(organizations.tags, filters.tag),
        filters.q === undefined ? undefined : nameOrEmailContains(filters.q),
        page?.after ? rowsAfter([organizations.createdAt, organizations.id], page.after, true) : undefined,
      ),
    )
    .orderBy(desc(organizations.createdAt), desc(organizations.id));
  return page ? query.limit(page.limit + 1) : query;
}

/** The tenant's organization with this id, or undefined (also for ids that are not UUIDs). */
async function organization(db: Queryable, tenantId: string, id: string, forUpdate = false) {
  if (!isOrganizationId(id)) return undefined;
  if (!forUpdate) return repo.get(db, tenantId, id);
  const [row] = await db
    .select()
    .from(organizations)
    .where(tenantWhere(organizations, tenantId, eq(organizations.id, id)))
    .for('update');
  return row;
}

/** Another account holds the link: 409 naming `externalId` and that account, which can be read instead. */
const linkTaken = (externalId: string, holderId: string) =>
  new AppError(
    'conflict',
    `externalId ${externalId} is already the link of account ${holderId}: one account per externalId`,
    [
      {
        field: 'externalId',
        rule: 'unique',
        message: `externalId is already the link of account ${holderId}; use that account`,
      },
    ],
    undefined,
    [next('getAccount', 'getAccount', { id: holderId })],
  );

/**
 * In the creating transaction: refuses `externalId` when an account of the tenant holds it. One
 * transaction-scoped lock per (tenant, externalId) makes concurrent creators check one after the
 * other (the later one sees the committed row); the unique index is the backstop.
 */
async function claimExternalId(tx: Queryable, tenantId: string, externalId: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`accounts:link:${tenantId}:${externalId}`}))`);
  const holder = await accountLinkedTo(tx, tenantId, externalId);
  if (holder) throw linkTaken(externalId, holder);
}

/** A new account; 409 `conflict` when another account of the tenant has its `externalId`. */
export async function insertAccount(
  tx: Queryable,
  tenantId: string,
  input: CreateInput,
  now: Date,
): Promise<AccountApi> {
  if (input.externalId) await claimExternalId(tx, tenantId, input.externalId);
  const row = await repo.insert(tx, tenantId, {
    id: uuidv7(),
    name: input.name,
    externalId: input.externalId ?? null,
    email: input.email ?? null,
    phone: input.phone ?? null,
    website: input.website ?? null,
    industry: input.industry ?? null,
    createdAt: now,
    updatedAt: now,
  });
  return presentAccount(row);
}

/** Applies a partial update to a tenant-owned account; undefined when the id is not one. */
export async function updateAccountRow(
  tx: Queryable,
  tenantId: string,
  id: string,
  patch: UpdateInput,
  now: Date,
): Promise<{ before: AccountApi; after: AccountApi } | undefined> {
  // Locked so the audit diff's `before` is the row this update replaces, even under concurrent PATCHes.
  const before = await organization(tx, tenantId, id, true);
  if (!before) return undefined;
  // Nothing to change (`{}`, or the values it has): the row, and its updatedAt, stay as they are.
  const changes = Object.entries(patch).filter(
    ([field, value]) => value !== undefined && value !== before[field as keyof typeof before],
  );
  if (changes.length === 0) return { before: presentAccount(before), after: presentAccount(before) };
  const after = await repo.update(tx, tenantId, before.id, { ...patch, updatedAt: now });
  return after && { before: presentAccount(before), after: presentAccount(after) };
}

/** The tenant's account linked to billing account `billingAccountId` (`externalId`; one at most). */
export async function accountLinkedTo(db: Queryable, tenantId: string, billingAccountId: string) {
  const [row] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(tenantWhere(organizations, tenantId, eq(organizations.externalId, billingAccountId)))
    .limit(1);
  return row?.id ?? null;
}

export type ResolvedAccount =
  | { source: 'local'; account: AccountApi }
  | { source: 'billing'; account: BillingAccount };

/**
 * GET /accounts/{id}: a tenant-owned organization first; otherwise, when the tenant has a billing
 * integration and the id has its account-id form, the billing system's account. Undefined: 404.
 */
export async function resolveAccount(
  deps: AccountDeps,
  tenantId: string,
  id: string,
): Promise<ResolvedAccount | undefined> {
  const row = await organization(deps.db, tenantId, id);
  if (row) return { source: 'local', account: presentAccount(row) };
  const adapter = await deps.billing.forTenant(deps.db, tenantId);
  if (!adapter?.isAccountId(id)) return undefined;
  const result = await adapter.getAccount(id);
  if (!result.ok && result.failure.kind === 'not_found') return undefined;
  return { source: 'billing', account: unwrapBilling(result, 'Account') };
}

/**
 * The billing-system account the sub-lists (invoices, subscriptions, payment methods) read, in
 * this order: no integration -> 404; a tenant-owned organization -> its `externalId` when that is a
 * billing account id, else 404; a billing account id -> itself; any other UUID -> 404 (an
 * organization id of no account here); anything else -> 400 naming `path.id`.
 */
export async function billingAccountFor(
  deps: AccountDeps,
  tenantId: string,
  id: string,
): Promise<{ adapter: BillingAdapter; accountId: string }> {
  const adapter = await deps.billing.forTenant(deps.db, tenantId);
  if (!adapter) {
    throw new AppError('not_found', 'Not found: this tenant has no active billing integration');
  }
  const row = await organization(deps.db, tenantId, id);
  if (row) {
    if (row.externalId !== null && adapter.isAccountId(row.externalId)) {
      return { adapter, accountId: row.externalId };
    }
    throw new AppError(
      'not_found',
      'Not found: this account has no billing-system account (its externalId is not a billing account id)',
    );
  }
  if (adapter.isAccountId(id)) return { adapter, accountId: id };
  if (isOrganizationId(id)) throw notFound('Account');
  throw validationFailed(
    'path.id',
    'format',
    `path.id has an invalid billing account id format for the ${adapter.name} billing adapter; ` +
      'pass a billing-system account id or an account id (UUID)',
  );
}
