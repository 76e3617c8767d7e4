import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { ProductContentSchema, ProductParams } from '../schemas.js';
import { presentContent, readContent } from '../service.js';
import { adminContentActions, TAGS } from './shared.js';

export const getAdminProductContentRoute = defineRoute({
  method: 'GET',
  path: '/admin/products/:id/content',
  operationId: 'getProductContentAdmin',
  summary: 'Get a product’s content in every locale',
  description:
    'The slug, status, version and every locale’s fields as stored (drafts included). 404: no content.',
  tags: TAGS,
  scope: 'admin',
  params: ProductParams,
  responses: { 200: Envelope(ProductContentSchema, 'The content.'), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const stored = await readContent(deps.db, ctx.tenantId, request.params.id);
    if (!stored) throw notFound('Product content');
    return envelope(ctx, presentContent(stored), adminContentActions(stored.productId));
  },
});
