import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../../core/errors.js';
import type { Queryable } from '../../../db/client.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { ContentKeyParams, PublicContentQuery, PublicContentSchema } from '../schemas.js';
import { acceptedLocales, type ContentEntryRow, findPublished, presentPublic } from '../service.js';
import { TAGS } from './shared.js';

/**
 * The published entry of `key` for this request: `?locale=`, then Accept-Language, then `en`, then
 * any published locale. Sets Content-Language (and Vary: Accept-Language); 404 when none is published.
 */
export async function publishedFor(
  db: Queryable,
  tenantId: string,
  key: string,
  request: FastifyRequest<{ Querystring: { locale?: string | undefined } }>,
  reply: FastifyReply,
): Promise<ContentEntryRow> {
  const header = request.headers['accept-language'];
  const wanted = [...(request.query.locale ? [request.query.locale] : []), ...acceptedLocales(header)];
  const row = await findPublished(db, tenantId, key, wanted);
  if (!row) throw notFound('Content page');
  reply.header('content-language', row.locale).header('vary', 'Accept-Language');
  return row;
}

export const getContentRoute = defineRoute({
  method: 'GET',
  path: '/content/:key',
  operationId: 'getContent',
  summary: 'Read a published content page',
  description:
    'The seller’s published page of this key (terms, privacy, returns, faq), Markdown. Locale: `locale`, ' +
    'Accept-Language, `en`, then any. Drafts: 404.',
  tags: TAGS,
  scope: 'read',
  params: ContentKeyParams,
  query: PublicContentQuery,
  responses: { 200: Envelope(PublicContentSchema, 'The page.'), ...errorResponses(404) },
  handler: async (request, reply, deps) => {
    const ctx = requireCtx(request);
    const row = await publishedFor(deps.db, ctx.tenantId, request.params.key, request, reply);
    return envelope(ctx, presentPublic(row), []);
  },
});
