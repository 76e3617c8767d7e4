import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { patchLocaleContent } from '../operations.js';
import { PatchLocaleBody, ProductContentSchema, ProductLocaleParams } from '../schemas.js';
import { contentResponse, TAGS, WRITE_NOTES } from './shared.js';

export const patchLocaleContentRoute = defineRoute({
  method: 'PATCH',
  path: '/admin/products/:id/content/:locale',
  operationId: 'updateProductContentLocale',
  summary: 'Change a product’s content in one locale',
  description:
    'Sets the given fields of an existing locale (404 if it has none: use putProductContentLocale); null ' +
    `clears a field. Same 400 rules as the PUT. ${WRITE_NOTES}`,
  tags: TAGS,
  scope: 'admin',
  params: ProductLocaleParams,
  body: PatchLocaleBody,
  responses: { 200: Envelope(ProductContentSchema, 'The content in every locale.'), ...errorResponses(404) },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) =>
        patchLocaleContent(
          deps,
          ctx,
          { productId: request.params.id, locale: request.params.locale, body: request.body },
          key,
        ),
      contentResponse,
    ),
});
