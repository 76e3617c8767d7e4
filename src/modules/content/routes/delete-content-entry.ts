import { Type } from 'typebox';
import { defineRoute } from '../../../http/declared-route.js';
import { errorResponses } from '../../../http/errors.js';
import { type Presented, respond } from '../../../http/operation.js';
import { deleteContent } from '../operations.js';
import { ContentKeyParams, EntryLocaleQuery } from '../schemas.js';
import { entryLocale, TAGS } from './shared.js';

export const deleteContentEntryRoute = defineRoute({
  method: 'DELETE',
  path: '/admin/content/:key',
  operationId: 'deleteContentEntry',
  summary: 'Delete a content entry',
  description:
    'Deletes the entry of this key and `locale` with its versions (other locales stay); 404 when there is ' +
    'none. Audit `content.delete`.',
  tags: TAGS,
  scope: 'admin',
  params: ContentKeyParams,
  query: EntryLocaleQuery,
  responses: { 204: Type.Null({ description: 'Deleted; no body.' }), ...errorResponses(404) },
  handler: async (request, reply, deps) => {
    const input = { key: request.params.key, locale: entryLocale(request.query) };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => deleteContent(deps, ctx, input, key),
      (): Presented => ({ status: 204, body: undefined }),
    );
  },
});
