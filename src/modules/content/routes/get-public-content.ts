import { Type } from 'typebox';
import { defineRoute } from '../../../http/declared-route.js';
import { PublicContentParams, PublicContentQuery, PublicContentSchema } from '../schemas.js';
import { presentPublic } from '../service.js';
import { publishedFor } from './get-content.js';
import { TAGS } from './shared.js';

/**
 * The same page without a key, for buyers' browsers and the seller profile's policy links
 * (`termsOfUseUrl: <base>/api/v1/t/<tenantId>/content/terms`): the tenant is in the path.
 */
export const getPublicContentRoute = defineRoute({
  method: 'GET',
  path: '/t/:tenantId/content/:key',
  operationId: 'getPublicContent',
  summary: 'Read a published content page, no key',
  description:
    'As getContent, without a key: the seller is the tenant in the path. `{ data }` with the page; drafts, ' +
    'unknown keys and unknown tenants: 404.',
  tags: TAGS,
  scope: null,
  public: false,
  params: PublicContentParams,
  query: PublicContentQuery,
  responses: { 200: Type.Object({ data: PublicContentSchema }) },
  handler: async (request, reply, deps) => {
    const { tenantId, key } = request.params;
    const row = await publishedFor(deps.db, tenantId, key, request, reply);
    return { data: presentPublic(row) };
  },
});
