import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { SellerProfileSchema } from '../schemas.js';
import { presentSellerProfile, readSellerProfile } from '../service.js';
import { SELLER_PROFILE_PURPOSE, sellerActions, TAGS } from './shared.js';

export const getSellerProfileRoute = defineRoute({
  method: 'GET',
  path: '/seller',
  operationId: 'getSellerProfile',
  summary: 'Get the seller profile',
  description: `${SELLER_PROFILE_PURPOSE} Never set: \`displayName\` is the tenant’s name, the rest null.`,
  tags: TAGS,
  scope: 'read',
  responses: { 200: Envelope(SellerProfileSchema, 'The seller profile.') },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const stored = await readSellerProfile(deps.db, ctx.tenantId);
    return envelope(ctx, presentSellerProfile(stored), sellerActions);
  },
});
