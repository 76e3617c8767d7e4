import { requireCtx } from '../../../../http/auth.js';
import { defineRoute } from '../../../../http/declared-route.js';
import { Envelope, envelope, next } from '../../../../http/envelope.js';
import { errorResponses } from '../../../../http/errors.js';
import { CancellationPreviewBody, CancellationPreviewSchema } from '../preview-schemas.js';
import { previewCancellation } from '../previews.js';
import { TAGS } from './preview-shared.js';

export const previewCancellationRoute = defineRoute({
  method: 'POST',
  path: '/preview/cancellation',
  operationId: 'previewCancellation',
  summary: 'Preview a cancellation',
  description:
    'What POST /subscriptions/{id}/cancel would do now: the effective date (see the ' +
    'cancel’s `timing`), the financial impact ' +
    '(`unusedDays`; `creditCents` or `refundCents` per `refund`), the entitlements lost and the add-ons ' +
    'cancelled with it. Its `previewId` (15 minutes) cancels at exactly this date and figure. 404 for a ' +
    'missing subscription; 409 when already cancelled.',
  tags: TAGS,
  scope: 'read',
  body: CancellationPreviewBody,
  responses: {
    200: Envelope(CancellationPreviewSchema, 'The previewed cancellation.'),
    ...errorResponses(404),
  },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const data = await previewCancellation(deps, ctx.tenantId, request.body);
    return envelope(ctx, data, [next('cancel', 'cancelSubscription', { id: data.subscriptionId })]);
  },
});
