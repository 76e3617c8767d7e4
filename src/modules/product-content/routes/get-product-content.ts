import { notFound } from '../../../core/errors.js';
import { hasScope } from '../../../core/scopes.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope, next } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { buyActions, productCrud } from '../../catalog/index.js';
import { LocalizedContentSchema, ProductParams, ReadContentHeaders, ReadContentQuery } from '../schemas.js';
import { acceptedLocales, contentForReader } from '../service.js';
import { TAGS } from './shared.js';

export const getProductContentRoute = defineRoute({
  method: 'GET',
  path: '/products/:id/content',
  operationId: 'getProductContent',
  summary: 'Get a product’s content in one locale',
  description:
    'Title, Markdown `description` and sanitised `descriptionHtml`, media, GTIN, attributes... in `locale`, ' +
    'else Accept-Language, else the default locale, else any. 404: none, or a draft.',
  tags: TAGS,
  scope: 'read',
  params: ProductParams,
  query: ReadContentQuery,
  headers: ReadContentHeaders,
  responses: {
    200: Envelope(LocalizedContentSchema, 'The content in the chosen locale.'),
    ...errorResponses(404),
  },
  handler: async (request, reply, deps) => {
    const ctx = requireCtx(request);
    const { locale } = request.query;
    const wanted = locale ? [locale] : acceptedLocales(request.headers['accept-language']);
    const drafts = hasScope(ctx.scopes, 'admin');
    const content = await contentForReader(deps.db, ctx.tenantId, request.params.id, wanted, drafts);
    if (!content) throw notFound('Product content');
    reply.header('content-language', content.locale);
    // An active product is offered to buy: a new cart holding it (with a cart, search with `cartId`).
    const product = await productCrud.service.get(deps.db, ctx.tenantId, content.productId);
    return envelope(ctx, content, [
      next('self', 'getProductContent', { id: content.productId }),
      ...(product?.active
        ? [next('resolvePrice', 'resolvePrice', { productId: product.id }), ...buyActions(product)]
        : []),
    ]);
  },
});
