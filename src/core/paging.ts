import { createHash } from 'node:crypto';
import { Type } from 'typebox';
import { validationFailed } from './errors.js';
import type { KeyRing } from './key-ring.js';

/**
 * Cursor paging, one rule for every list: without `limit` the whole list as before; with `limit`
 * a page and `meta.nextCursor`. A cursor holds the sort key of the last row it saw (keyset
 * paging, so rows added meanwhile neither repeat nor shift a page), the list it belongs to and a
 * tag of the tenant, so another tenant's cursor is refused rather than read. It is signed by the
 * key ring: a cursor we did not issue (tampered, forged, truncated) is `400` before any of its
 * content is read, and the content is checked again (a timestamp PostgreSQL cannot hold, a
 * number beyond bigint) before it reaches SQL.
 */

const PAGE_LIMIT_MAX = 200;
const CURSOR_MAX_LENGTH = 512;
const VERSION = 1;

export const PageQueryFields = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: PAGE_LIMIT_MAX,
      description: 'Page size.',
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: CURSOR_MAX_LENGTH,
      description: 'From `meta.nextCursor`.',
    }),
  ),
};

/** The sort key of a row: the values of the columns the list is ordered by, in order. */
export type SortKey = readonly (string | number)[];

export interface PageQuery {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** A page to read: its size, and the key of the last row of the previous page (none on the first). */
export interface PageRequest {
  limit: number;
  after: SortKey | null;
}

/** The keys that sign cursors (the key ring): a cursor we did not sign is refused unread. */
export type CursorKeys = Pick<KeyRing, 'mac' | 'verifyMac'>;

/** Whose list a cursor pages: the tenant, the list (name and filters' scope) and the signing keys. */
export interface ListScope {
  tenantId: string;
  list: string;
  keys: CursorKeys;
}

const tenantTag = (tenantId: string) =>
  createHash('sha256').update(tenantId).digest('base64url').slice(0, 12);

/** `<payload>.<key id>.<MAC>`: the payload (base64url JSON) signed by the key ring. */
export function encodeCursor(where: ListScope, key: SortKey): string {
  const payload = Buffer.from(
    JSON.stringify([VERSION, where.list, tenantTag(where.tenantId), ...key]),
  ).toString('base64url');
  return `${payload}.${where.keys.mac('list_cursor', payload)}`;
}

/** What each value of a list's sort key is, so a cursor is checked before it reaches SQL. */
export type KeyPart = 'timestamp' | 'uuid' | 'integer' | 'text';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A timestamp as `toISOString` writes one, years 1-9999: what PostgreSQL's timestamptz can compare. */
const ISO_INSTANT = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const storableInstant = (v: string) => {
  const year = ISO_INSTANT.exec(v)?.[1];
  return (
    year !== undefined && Number(year) >= 1 && !Number.isNaN(Date.parse(v)) && new Date(v).toISOString() === v
  );
};
const KEY_PART_VALID: Record<KeyPart, (v: string | number) => boolean> = {
  timestamp: (v) => typeof v === 'string' && storableInstant(v),
  uuid: (v) => typeof v === 'string' && UUID.test(v),
  integer: (v) => Number.isSafeInteger(v),
  text: (v) => typeof v === 'string',
};

const notOurs = (rule: string, why: string) =>
  validationFailed('query.cursor', rule, `query.cursor is not a cursor this API issued (${why})`);

/**
 * The page a query asks for; null when it has no `limit` (the whole list). `shape` is the list's
 * sort key (one `text` identity for lists paged in memory).
 */
export function pageRequest(
  where: ListScope,
  query: PageQuery,
  shape: readonly KeyPart[] = ['text'],
): PageRequest | null {
  if (query.limit === undefined) {
    if (query.cursor !== undefined)
      throw validationFailed('query.cursor', 'limit', 'query.cursor is only read together with limit');
    return null;
  }
  if (query.cursor === undefined) return { limit: query.limit, after: null };
  const after = decodeCursor(where, query.cursor);
  if (
    after.length !== shape.length ||
    !shape.every((part, i) => KEY_PART_VALID[part](after[i] as string | number))
  )
    throw notOurs('format', 'its position is not one of this list');
  return { limit: query.limit, after };
}

/** A cursor's sort key: only from a cursor we signed, for this tenant and this list (else 400). */
function decodeCursor(where: ListScope, cursor: string): SortKey {
  const dot = cursor.indexOf('.');
  const payload = cursor.slice(0, dot);
  if (dot < 0 || !where.keys.verifyMac('list_cursor', payload, cursor.slice(dot + 1)))
    throw notOurs('signature', 'its signature does not match');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const valid =
    Array.isArray(parsed) &&
    parsed.length > 3 &&
    parsed[0] === VERSION &&
    parsed.every((v, i) => i === 0 || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)));
  if (!valid) throw notOurs('format', 'unreadable');
  const [, cursorList, tag, ...key] = parsed as [number, string, string, ...(string | number)[]];
  if (tag !== tenantTag(where.tenantId))
    throw validationFailed('query.cursor', 'tenant', 'query.cursor belongs to another tenant');
  if (cursorList !== where.list)
    throw validationFailed('query.cursor', 'list', `query.cursor belongs to another list, not ${where.list}`);
  return key;
}

export interface Paged<T> {
  items: T[];
  limit: number;
  /** Where the next page starts; null on the last page. */
  nextCursor: string | null;
}

/**
 * A page from rows read with one row more than the limit (`limit + 1`): the extra row only says
 * whether a next page exists.
 */
export function pageOfRows<T>(
  rows: readonly T[],
  page: PageRequest,
  cursorOf: (row: T) => SortKey,
  where: ListScope,
): Paged<T> {
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  const nextCursor =
    rows.length > page.limit && last !== undefined ? encodeCursor(where, cursorOf(last)) : null;
  return { items, limit: page.limit, nextCursor };
}

/**
 * A page of a list held in memory (small per-tenant lists, and lists read live from the billing
 * system): the cursor anchors on the last item's identity, so items added before or after it do
 * not shift the page; a cursor whose item is gone is refused (start again without it).
 */
export function pageOfList<T>(
  all: readonly T[],
  page: PageRequest,
  identityOf: (item: T) => string,
  where: ListScope,
): Paged<T> {
  let start = 0;
  if (page.after) {
    const anchor = String(page.after[0]);
    const at = all.findIndex((item) => identityOf(item) === anchor);
    if (at < 0)
      throw validationFailed(
        'query.cursor',
        'stale',
        'query.cursor points at an item that is gone; start again',
      );
    start = at + 1;
  }
  return pageOfRows(all.slice(start, start + page.limit + 1), page, (item) => [identityOf(item)], where);
}

/** The same page with its items presented. */
const presentPage = <T, U>(page: Paged<T>, present: (item: T) => U): Paged<U> => ({
  ...page,
  items: page.items.map(present),
});

/** The sort key of lists ordered newest first by creation: (createdAt, id), both descending. */
export const NEWEST_FIRST: readonly KeyPart[] = ['timestamp', 'uuid'];
export const createdKey = (row: { createdAt: Date; id: string }): SortKey => [
  row.createdAt.toISOString(),
  row.id,
];

/** Rows read for a list, presented: the whole list, or the page they were read for. */
export function listOfRows<T, U>(
  rows: readonly T[],
  page: PageRequest | null,
  cursorOf: (row: T) => SortKey,
  where: ListScope,
  present: (row: T) => U,
): U[] | Paged<U> {
  if (!page) return rows.map(present);
  return presentPage(pageOfRows(rows, page, cursorOf, where), present);
}
