import { LIST_PAGING } from '../../../core/agent-guide.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { ListEnvelope, newestFirstList } from '../../../http/paging.js';
import { ContentEntrySchema, ContentListQuery } from '../schemas.js';
import { listEntries, presentEntry } from '../service.js';
import { CONTENT_PURPOSE, TAGS } from './shared.js';

export const listContentEntriesRoute = defineRoute({
  method: 'GET',
  path: '/admin/content',
  operationId: 'listContentEntries',
  summary: 'List content entries',
  description: `${CONTENT_PURPOSE} Newest first; filter by \`status\`, \`locale\`, \`key\`. ${LIST_PAGING.text}`,
  tags: TAGS,
  scope: 'admin',
  query: ContentListQuery,
  responses: { 200: ListEnvelope(ContentEntrySchema, 'The entries.') },
  handler: async (request, _reply, deps) =>
    newestFirstList(request, deps.keyRing, {
      name: 'content',
      read: (tenantId, page) => listEntries(deps.db, tenantId, request.query, page),
      present: presentEntry,
      actions: [next('create', 'putContentEntry', { key: 'terms' })],
    }),
});
