import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { ContentEntrySchema, ContentKeyParams, EntryLocaleQuery } from '../schemas.js';
import { findEntry, presentEntry } from '../service.js';
import { CONTENT_PURPOSE, entryActions, entryLocale, TAGS } from './shared.js';

export const getContentEntryRoute = defineRoute({
  method: 'GET',
  path: '/admin/content/:key',
  operationId: 'getContentEntry',
  summary: 'Get a content entry',
  description: `${CONTENT_PURPOSE} The entry of this key and \`locale\`, draft or published; 404 when there is none.`,
  tags: TAGS,
  scope: 'admin',
  params: ContentKeyParams,
  query: EntryLocaleQuery,
  responses: { 200: Envelope(ContentEntrySchema, 'The entry.'), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const row = await findEntry(deps.db, ctx.tenantId, request.params.key, entryLocale(request.query));
    if (!row) throw notFound('Content entry');
    return envelope(ctx, presentEntry(row), entryActions(row));
  },
});
