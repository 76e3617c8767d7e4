import type { RequestContext } from '../../../http/context.js';
import { envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import { presentSellerProfile, type StoredSellerProfile } from '../service.js';

export const TAGS = ['Seller'];

export const sellerActions = [next('self', 'getSellerProfile'), next('update', 'updateSellerProfile')];

export const sellerProfileResponse = (stored: StoredSellerProfile, ctx: RequestContext): Presented => ({
  status: 200,
  body: envelope(ctx, presentSellerProfile(stored), sellerActions),
});

/** What the profile is for, said once for both routes. */
export const SELLER_PROFILE_PURPOSE =
  'How this tenant presents itself in agentic checkouts (ACP, UCP): name, support contact, policy links.';
