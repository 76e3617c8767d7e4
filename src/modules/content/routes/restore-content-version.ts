import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { restoreContentVersion } from '../operations.js';
import { ContentEntrySchema, ContentVersionParams, EntryLocaleQuery } from '../schemas.js';
import { entryLocale, entryResponse, TAGS } from './shared.js';

export const restoreContentVersionRoute = defineRoute({
  method: 'POST',
  path: '/admin/content/:key/versions/:version/restore',
  operationId: 'restoreContentVersion',
  summary: 'Restore a version of a content entry',
  description:
    'The title and body of that version become the entry’s next version; its status stays (publish with ' +
    'updateContentEntry). 404 for an unknown entry or version. Audit `content.restore`.',
  tags: TAGS,
  scope: 'admin',
  params: ContentVersionParams,
  query: EntryLocaleQuery,
  responses: { 200: Envelope(ContentEntrySchema, 'The entry at its new version.'), ...errorResponses(404) },
  handler: async (request, reply, deps) => {
    const { key, version } = request.params;
    const input = { key, version, locale: entryLocale(request.query) };
    return respond(
      deps,
      request,
      reply,
      (ctx, k) => restoreContentVersion(deps, ctx, input, k),
      entryResponse(200),
    );
  },
});
