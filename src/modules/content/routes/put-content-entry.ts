import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { type ContentWrite, putContent } from '../operations.js';
import { ContentEntrySchema, ContentKeyParams, PutContentBody } from '../schemas.js';
import { CONTENT_PURPOSE, entryLocale, entryResponse, TAGS } from './shared.js';

export const putContentEntryRoute = defineRoute({
  method: 'PUT',
  path: '/admin/content/:key',
  operationId: 'putContentEntry',
  summary: 'Create or replace a content entry',
  description:
    `${CONTENT_PURPOSE} Creates the entry of this key and \`locale\` (201, version 1) or replaces its title, ` +
    'body and status as its next version (200). A bad key, locale or title is 400 naming the field. ' +
    'Audit `content.create` / `content.update`.',
  tags: TAGS,
  scope: 'admin',
  params: ContentKeyParams,
  body: PutContentBody,
  createdAt: [{ collection: '/api/v1/admin/content', id: '$response.body#/data/key' }],
  responses: {
    200: Envelope(ContentEntrySchema, 'The entry, replaced: its new version.'),
    201: Envelope(ContentEntrySchema, 'The entry, created.'),
    ...errorResponses(409),
  },
  handler: async (request, reply, deps) => {
    const { locale, title, body, status } = request.body;
    const input = {
      key: request.params.key,
      locale: entryLocale({ locale }),
      title,
      body,
      status: status ?? 'draft',
    };
    return respond<ContentWrite>(
      deps,
      request,
      reply,
      (ctx, key) => putContent(deps, ctx, input, key),
      (written, ctx) => entryResponse(written.created ? 201 : 200)(written.entry, ctx),
    );
  },
});
