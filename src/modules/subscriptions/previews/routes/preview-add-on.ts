import { requireCtx } from '../../../../http/auth.js';
import { defineRoute } from '../../../../http/declared-route.js';
import { Envelope, envelope, next } from '../../../../http/envelope.js';
import { errorResponses } from '../../../../http/errors.js';
import { AddOnPreviewBody, AddOnPreviewSchema } from '../preview-schemas.js';
import { previewAddOn } from '../previews.js';
import { TAGS } from './preview-shared.js';

export const previewAddOnRoute = defineRoute({
  method: 'POST',
  path: '/preview/add-on',
  operationId: 'previewAddOn',
  summary: 'Preview buying an add-on',
  description:
    'What buying `addOnProductId` would do now: its price per period (with the subscription’s customer ' +
    'context), the charge for the rest of the parent’s period (by UTC days, half-up cents; it then renews ' +
    'with the parent) and the entitlements before, after and gained. POST /subscriptions with `productId`, ' +
    '`parentSubscriptionId` and its `previewId` buys at exactly these figures. 404 for a missing ' +
    'subscription or add-on product; 400 when it is not an add-on.',
  tags: TAGS,
  scope: 'read',
  body: AddOnPreviewBody,
  responses: { 200: Envelope(AddOnPreviewSchema, 'The previewed purchase.'), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const data = await previewAddOn(deps, ctx.tenantId, request.body);
    return envelope(ctx, data, [next('createSubscription', 'createSubscription')]);
  },
});
