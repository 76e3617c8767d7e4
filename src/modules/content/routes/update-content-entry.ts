import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { patchContent } from '../operations.js';
import { ContentEntrySchema, ContentKeyParams, EntryLocaleQuery, PatchContentBody } from '../schemas.js';
import { entryLocale, entryResponse, TAGS } from './shared.js';

export const updateContentEntryRoute = defineRoute({
  method: 'PATCH',
  path: '/admin/content/:key',
  operationId: 'updateContentEntry',
  summary: 'Update a content entry (publish, unpublish, edit)',
  description:
    'Sets the given fields (`title`, `body`, `status`; at least one) of the entry of this key and `locale` as ' +
    'its next version: `status: published` publishes it, `draft` takes it off the public read. 404 when there ' +
    'is none. Audit `content.update` (before/after).',
  tags: TAGS,
  scope: 'admin',
  params: ContentKeyParams,
  query: EntryLocaleQuery,
  body: PatchContentBody,
  responses: { 200: Envelope(ContentEntrySchema, 'The entry at its new version.'), ...errorResponses(404) },
  handler: async (request, reply, deps) => {
    const input = { key: request.params.key, locale: entryLocale(request.query), changes: request.body };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => patchContent(deps, ctx, input, key),
      entryResponse(200),
    );
  },
});
