import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { patchContentSettings } from '../operations.js';
import { PatchContentBody, ProductContentSchema, ProductParams } from '../schemas.js';
import { contentResponse, TAGS, WRITE_NOTES } from './shared.js';

export const updateProductContentRoute = defineRoute({
  method: 'PATCH',
  path: '/admin/products/:id/content',
  operationId: 'updateProductContent',
  summary: 'Set a product’s slug and status',
  description:
    'What every locale shares: `slug` (unique per tenant: 409 `conflict` naming `slug`; null removes it) and ' +
    `\`status\` (\`draft\` takes the product off offer to buyers and agents). ${WRITE_NOTES}`,
  tags: TAGS,
  scope: 'admin',
  params: ProductParams,
  body: PatchContentBody,
  responses: {
    200: Envelope(ProductContentSchema, 'The content in every locale.'),
    ...errorResponses(404, 409),
  },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) =>
        patchContentSettings(deps, ctx, { productId: request.params.id, body: request.body }, key),
      contentResponse,
    ),
});
