import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { SellerProfileSchema, sellerProfileExample } from '../schemas.js';
import { presentSellerProfile, readSellerProfile } from '../service.js';
import { SELLER_PROFILE_PURPOSE, sellerActions, TAGS } from './shared.js';

/** An answer as the route gives it (the example every status shows). */
export const sellerProfileEnvelopeExample = {
  data: { ...sellerProfileExample, updatedAt: '2026-04-20T09:30:00.000Z' },
  nextActions: [
    { rel: 'self', method: 'GET', href: '/api/v1/seller', requiredScope: 'read', allowed: true },
    {
      rel: 'update',
      method: 'PATCH',
      href: '/api/v1/seller',
      requiredScope: 'admin',
      allowed: false,
      reason: 'needs the admin scope',
    },
  ],
};

export const getSellerProfileRoute = defineRoute({
  method: 'GET',
  path: '/seller',
  operationId: 'getSellerProfile',
  summary: 'Get the seller profile',
  description: `${SELLER_PROFILE_PURPOSE} Never set: \`displayName\` is the tenant’s name, the rest null.`,
  tags: TAGS,
  scope: 'read',
  responses: { 200: Envelope(SellerProfileSchema, 'The seller profile.', sellerProfileEnvelopeExample) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const stored = await readSellerProfile(deps.db, ctx.tenantId);
    return envelope(ctx, presentSellerProfile(stored), sellerActions);
  },
});
