import { requireCtx } from '../../../../http/auth.js';
import { defineRoute } from '../../../../http/declared-route.js';
import { Envelope, envelope, next } from '../../../../http/envelope.js';
import { errorResponses } from '../../../../http/errors.js';
import { PlanChangePreviewBody, PlanChangePreviewSchema } from '../preview-schemas.js';
import { previewPlanChange } from '../previews.js';
import { TAGS } from './preview-shared.js';

export const previewPlanChangeRoute = defineRoute({
  method: 'POST',
  path: '/preview/plan-change',
  operationId: 'previewPlanChange',
  summary: 'Preview a plan change',
  description:
    'What POST /subscriptions/{id}/change-plan would do now: `direction`, `effectiveDate`, ' +
    '`planDependencyAdjustments`, `financialImpact` (credit for unused days, charge for the rest of the ' +
    'period, net), `businessRule`, `policyEvaluation` (`allowed: false`: the change would be 403) and ' +
    '`resolvedPrice`. Its `previewId` (until `expiresAt`) runs the change at exactly these figures. 404 for ' +
    'a missing subscription or target product.',
  tags: TAGS,
  scope: 'read',
  body: PlanChangePreviewBody,
  responses: { 200: Envelope(PlanChangePreviewSchema, 'The previewed change.'), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const data = await previewPlanChange(deps, ctx.tenantId, request.body);
    const _path = `/subscriptions/${data.subscriptionId}`;
    return envelope(ctx, data, [
      next('changePlan', 'changeSubscriptionPlan', { id: data.subscriptionId }),
      next('subscription', 'getSubscription', { id: data.subscriptionId }),
    ]);
  },
});
