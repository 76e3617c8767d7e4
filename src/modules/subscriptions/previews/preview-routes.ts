import { requireCtx } from '../../../http/auth.js';
import type { Deps } from '../../../http/deps.js';
import { action, Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import type { TypedApp } from '../../../http/types.js';
import {
  AddOnPreviewBody,
  AddOnPreviewSchema,
  CancellationPreviewBody,
  CancellationPreviewSchema,
  PlanChangePreviewBody,
  PlanChangePreviewSchema,
} from './preview-schemas.js';
import { previewAddOn, previewCancellation, previewPlanChange } from './previews.js';

const TAGS = ['Previews'];

export function registerPreviewRoutes(app: TypedApp, deps: Deps) {
  app.post(
    '/api/v1/preview/plan-change',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'previewPlanChange',
        summary: 'Preview a plan change',
        description:
          'What POST /subscriptions/{id}/change-plan would do now: `direction`, `effectiveDate`, ' +
          '`planDependencyAdjustments`, `financialImpact` (credit for unused days, charge for the rest of the ' +
          'period, net), `businessRule`, `policyEvaluation` (`allowed: false`: the change would be 403) and ' +
          '`resolvedPrice`. Its `previewId` (until `expiresAt`) runs the change at exactly these figures. 404 for ' +
          'a missing subscription or target product.',
        tags: TAGS,
        body: PlanChangePreviewBody,
        response: { 200: Envelope(PlanChangePreviewSchema, 'The previewed change.'), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const data = await previewPlanChange(deps, ctx.tenantId, request.body);
      const path = `/subscriptions/${data.subscriptionId}`;
      return envelope(ctx, data, [
        action('changePlan', 'POST', `${path}/change-plan`, 'commerce'),
        action('subscription', 'GET', path, 'read'),
      ]);
    },
  );

  app.post(
    '/api/v1/preview/add-on',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'previewAddOn',
        summary: 'Preview buying an add-on',
        description:
          'What buying `addOnProductId` would do now: its price per period (with the subscription’s customer ' +
          'context), the charge for the rest of the parent’s period (by UTC days, half-up cents; it then renews ' +
          'with the parent) and the entitlements before, after and gained. POST /subscriptions with `productId`, ' +
          '`parentSubscriptionId` and its `previewId` buys at exactly these figures. 404 for a missing ' +
          'subscription or add-on product; 400 when it is not an add-on.',
        tags: TAGS,
        body: AddOnPreviewBody,
        response: { 200: Envelope(AddOnPreviewSchema, 'The previewed purchase.'), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const data = await previewAddOn(deps, ctx.tenantId, request.body);
      return envelope(ctx, data, [action('createSubscription', 'POST', '/subscriptions', 'commerce')]);
    },
  );

  app.post(
    '/api/v1/preview/cancellation',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'previewCancellation',
        summary: 'Preview a cancellation',
        description:
          'What POST /subscriptions/{id}/cancel would do now: the effective date (see the ' +
          'cancel’s `timing`), the financial impact ' +
          '(`unusedDays`; `creditCents` or `refundCents` per `refund`), the entitlements lost and the add-ons ' +
          'cancelled with it. Its `previewId` (15 minutes) cancels at exactly this date and figure. 404 for a ' +
          'missing subscription; 409 when already cancelled.',
        tags: TAGS,
        body: CancellationPreviewBody,
        response: {
          200: Envelope(CancellationPreviewSchema, 'The previewed cancellation.'),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const data = await previewCancellation(deps, ctx.tenantId, request.body);
      return envelope(ctx, data, [
        action('cancel', 'POST', `/subscriptions/${data.subscriptionId}/cancel`, 'commerce'),
      ]);
    },
  );
}
