import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { putLocaleContent } from '../operations.js';
import { ProductContentSchema, ProductLocaleParams, PutLocaleBody } from '../schemas.js';
import { contentResponse, TAGS, WRITE_NOTES } from './shared.js';

export const putLocaleContentRoute = defineRoute({
  method: 'PUT',
  path: '/admin/products/:id/content/:locale',
  operationId: 'putProductContentLocale',
  summary: 'Set a product’s content in one locale',
  description:
    'Replaces the locale’s content (fields left out are emptied). A product’s first content is `published` ' +
    'with no slug (updateProductContent sets them). A bad GTIN check digit, a repeated attribute key or a ' +
    `value not of its type is 400 naming the field. ${WRITE_NOTES}`,
  tags: TAGS,
  scope: 'admin',
  params: ProductLocaleParams,
  body: PutLocaleBody,
  responses: { 200: Envelope(ProductContentSchema, 'The content in every locale.'), ...errorResponses(404) },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) =>
        putLocaleContent(
          deps,
          ctx,
          { productId: request.params.id, locale: request.params.locale, body: request.body },
          key,
        ),
      contentResponse,
    ),
});
