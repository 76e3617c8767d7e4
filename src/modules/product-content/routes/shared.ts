import type { RequestContext } from '../../../http/context.js';
import { envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import { presentContent, type StoredContent } from '../service.js';

export const TAGS = ['Product content'];

export const adminContentActions = (productId: string) => [
  next('self', 'getProductContentAdmin', { id: productId }),
  next('versions', 'listProductContentVersions', { id: productId }),
  next('read', 'getProductContent', { id: productId }),
];

/** The admin view of the content after a write. */
export const contentResponse = (stored: StoredContent, ctx: RequestContext): Presented => ({
  status: 200,
  body: envelope(ctx, presentContent(stored), adminContentActions(stored.productId)),
});

/** Said once for the write routes. */
export const WRITE_NOTES =
  'Each change is a new `version` (history: listProductContentVersions; restoreProductContentVersion); ' +
  'an unknown product is 404. Audit `product_content.update`.';
