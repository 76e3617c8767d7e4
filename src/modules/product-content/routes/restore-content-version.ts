import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { restoreContentVersion } from '../operations.js';
import { ProductContentSchema, VersionParams } from '../schemas.js';
import { contentResponse, TAGS } from './shared.js';

export const restoreContentVersionRoute = defineRoute({
  method: 'POST',
  path: '/admin/products/:id/content/versions/:version/restore',
  operationId: 'restoreProductContentVersion',
  summary: 'Restore a version of a product’s content',
  description:
    'Writes that version’s content (slug, status, every locale) back as a new version. 404: unknown ' +
    'version; 409 when its slug is now another product’s. Audit `product_content.restore`.',
  tags: TAGS,
  scope: 'admin',
  params: VersionParams,
  responses: { 200: Envelope(ProductContentSchema, 'The content as restored.'), ...errorResponses(404, 409) },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) =>
        restoreContentVersion(
          deps,
          ctx,
          { productId: request.params.id, version: request.params.version },
          key,
        ),
      contentResponse,
    ),
});
