import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { respond } from '../../../http/operation.js';
import { updateSellerProfile } from '../operations.js';
import { SellerProfileSchema, UpdateSellerProfileBody } from '../schemas.js';
import { sellerProfileEnvelopeExample } from './get-seller-profile.js';
import { SELLER_PROFILE_PURPOSE, sellerProfileResponse, TAGS } from './shared.js';

export const updateSellerProfileRoute = defineRoute({
  method: 'PATCH',
  path: '/seller',
  operationId: 'updateSellerProfile',
  summary: 'Update the seller profile',
  description:
    `${SELLER_PROFILE_PURPOSE} Sets the given fields (at least one); a field left out keeps its value, ` +
    'null clears it (`displayName: null` goes back to the tenant’s name). URLs must be absolute https ' +
    'URLs and `supportEmail` an email address; a 400 names the field. Returns the whole profile. ' +
    'Audit `seller.update` (before/after diff).',
  tags: TAGS,
  scope: 'admin',
  body: UpdateSellerProfileBody,
  responses: {
    200: Envelope(SellerProfileSchema, 'The profile as it is now.', sellerProfileEnvelopeExample),
  },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) => updateSellerProfile(deps, ctx, request.body, key),
      sellerProfileResponse,
    ),
});
