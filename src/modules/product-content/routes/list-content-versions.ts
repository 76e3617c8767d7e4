import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../../http/paging.js';
import { productCrud } from '../../catalog/index.js';
import { ContentVersionSchema, ProductParams } from '../schemas.js';
import { listVersions } from '../service.js';
import { TAGS } from './shared.js';

export const listContentVersionsRoute = defineRoute({
  method: 'GET',
  path: '/admin/products/:id/content/versions',
  operationId: 'listProductContentVersions',
  summary: 'List the versions of a product’s content',
  description: 'Every version, newest first, each with the whole content it had; empty if it never had any.',
  tags: TAGS,
  scope: 'admin',
  params: ProductParams,
  query: PageQuery,
  responses: { 200: ListEnvelope(ContentVersionSchema, 'The versions, newest first.') },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const { id } = request.params;
    // Another tenant's product (or none) is 404, as on every route naming a product.
    if (!(await productCrud.service.get(deps.db, ctx.tenantId, id))) throw notFound('Product');
    const items = await listVersions(deps.db, ctx.tenantId, id);
    return inMemoryList(
      deps.keyRing,
      ctx,
      request,
      `content-versions:${id}`,
      items,
      (shown) =>
        shown.map((v) => next('restore', 'restoreProductContentVersion', { id, version: v.version })),
      (v) => String(v.version),
    );
  },
});
