import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import {
  type CursorKeys,
  createdKey,
  listOfRows,
  NEWEST_FIRST,
  type Paged,
  PageQueryFields,
  type PageRequest,
  pageOfList,
  pageRequest,
} from '../core/paging.js';
import { requireCtx } from './auth.js';
import type { RequestContext } from './context.js';
import { type ActionSpec, API_PREFIX, action, Envelope, envelope, nextActionsFor } from './envelope.js';

/** The query of a list with no filters: only the paging arguments. */
export const PageQuery = Type.Object(PageQueryFields, { additionalProperties: false });

export const PageMeta = Type.Object(
  {
    limit: Type.Integer({ description: 'The page size asked for.' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description:
        'Pass as `cursor` (with the same `limit` and filters) for the next page; null on the last page.',
    }),
  },
  { description: 'Only with `limit`: where the next page starts.' },
);

/** Schema of a list's envelope: `data` the items, and `meta` when a page was asked for. */
export function ListEnvelope<T extends TSchema>(item: T, description: string, example?: object) {
  const base = Envelope(Type.Array(item), description, example);
  return Type.Object(
    { ...base.properties, meta: Type.Optional(PageMeta) },
    { description, ...(example ? { examples: [example] } : {}) },
  );
}

/**
 * A list's body: the whole list, or a page of it with `meta` and a `next` action that repeats
 * this request (its filters and limit) from the next cursor.
 */
export function listEnvelope<T>(
  ctx: RequestContext,
  request: FastifyRequest,
  list: T[] | Paged<T>,
  actions: readonly ActionSpec[] = [],
) {
  if (Array.isArray(list)) return envelope(ctx, list, actions);
  const next: ActionSpec[] = [];
  if (list.nextCursor !== null) {
    const url = new URL(request.url, 'http://local');
    url.searchParams.set('cursor', list.nextCursor);
    const query = (request.query ?? {}) as Record<string, unknown>;
    next.push(
      action(
        'next',
        'GET',
        `${url.pathname.slice(API_PREFIX.length)}${url.search}`,
        request.routeOptions.config.scope ?? null,
        {
          ...query,
          cursor: list.nextCursor,
        },
      ),
    );
  }
  return {
    ...envelope(ctx, list.items, [...next, ...actions]),
    meta: { limit: list.limit, nextCursor: list.nextCursor },
  };
}

/**
 * The body of a list read from the database newest first (by `createdAt`, then id): the whole
 * list, or the keyset page the query asks for (`read` gets the page, null for all).
 */
export async function newestFirstList<Row extends { createdAt: Date; id: string }, T>(
  request: FastifyRequest,
  keys: CursorKeys,
  list: {
    name: string;
    read: (tenantId: string, page: PageRequest | null) => Promise<readonly Row[]>;
    present: (row: Row) => T;
    actions?: readonly ActionSpec[];
  },
) {
  const ctx = requireCtx(request);
  const where = { tenantId: ctx.tenantId, list: list.name, keys };
  const page = pageRequest(where, request.query as { limit?: number; cursor?: string }, NEWEST_FIRST);
  const rows = await list.read(ctx.tenantId, page);
  return listEnvelope(ctx, request, listOfRows(rows, page, createdKey, where, list.present), list.actions);
}

/**
 * The body of a list held in memory (a tenant's configuration, or read live from the billing
 * system): the whole list, or the page the query asks for, anchored on the items' identity.
 */
export function inMemoryList<T>(
  keys: CursorKeys,
  ctx: RequestContext,
  request: FastifyRequest,
  listName: string,
  items: T[],
  actions: readonly ActionSpec[] | ((shown: T[]) => ActionSpec[]) = [],
  identityOf: (item: T) => string = (item) => (item as { id: string }).id,
) {
  const where = { tenantId: ctx.tenantId, list: listName, keys };
  const page = pageRequest(where, request.query as { limit?: number; cursor?: string });
  const list = page ? pageOfList(items, page, identityOf, where) : items;
  const shown = Array.isArray(list) ? list : list.items;
  return listEnvelope(ctx, request, list, typeof actions === 'function' ? actions(shown) : actions);
}

/**
 * A whole list sent as it is read: `{"data":[` then each batch of items as it comes, then the
 * actions. The server holds one batch at a time, however long the list (GET /orders of a tenant
 * with 100,000 orders grows its memory by a few MB, not by the size of the response). A database
 * failure after the first bytes ends the connection with the JSON unfinished, so a client cannot
 * mistake a cut list for a whole one.
 */
export function streamList(
  ctx: RequestContext,
  reply: FastifyReply,
  batches: AsyncIterable<readonly unknown[]>,
  actions: readonly ActionSpec[],
): FastifyReply {
  async function* body() {
    yield '{"data":[';
    let first = true;
    for await (const batch of batches) {
      if (batch.length === 0) continue;
      yield (first ? '' : ',') + batch.map((item) => JSON.stringify(item)).join(',');
      first = false;
    }
    const tail = { nextActions: nextActionsFor(ctx, actions) };
    reply.server.completeActions(tail);
    yield `],"nextActions":${JSON.stringify(tail.nextActions)}}`;
  }
  return reply.type('application/json; charset=utf-8').send(Readable.from(body()));
}
