import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { inMemoryList, ListEnvelope } from '../../../http/paging.js';
import { ContentKeyParams, ContentVersionSchema, VersionListQuery } from '../schemas.js';
import { findEntry, listVersions, presentVersion } from '../service.js';
import { entryLocale, TAGS } from './shared.js';

export const listContentVersionsRoute = defineRoute({
  method: 'GET',
  path: '/admin/content/:key/versions',
  operationId: 'listContentVersions',
  summary: 'List the versions of a content entry',
  description:
    'Every version of the entry of this key and `locale`, newest first (the current one too), as written. ' +
    'Restore one with restoreContentVersion. 404 when there is no such entry.',
  tags: TAGS,
  scope: 'admin',
  params: ContentKeyParams,
  query: VersionListQuery,
  responses: { 200: ListEnvelope(ContentVersionSchema, 'The versions.'), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const entry = await findEntry(deps.db, ctx.tenantId, request.params.key, entryLocale(request.query));
    if (!entry) throw notFound('Content entry');
    const versions = await listVersions(deps.db, ctx.tenantId, entry.id);
    const ref = { key: entry.key, locale: entry.locale };
    const listName = `content-versions:${entry.id}`;
    const items = versions.map(presentVersion);
    const actions = [next('entry', 'getContentEntry', ref)];
    return inMemoryList(deps.keyRing, ctx, request, listName, items, actions, (v) => String(v.version));
  },
});
