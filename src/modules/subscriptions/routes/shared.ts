import type { Invoice } from '../../../billing/index.js';
import type { Clock } from '../../../clock.js';
import type { RequestContext } from '../../../http/context.js';
import type { Deps } from '../../../http/deps.js';
import { type ActionSpec, envelope, next } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import type { Presented } from '../../../http/operation.js';
import type { TagTarget } from '../../../http/tag-routes.js';
import { renewalRefusal } from '../renew.js';
import { SubscriptionSchema } from '../schemas.js';
import { presentSubscription, type SubscriptionApi, type SubscriptionRow } from '../service.js';
import { subscriptionTags } from '../tags.js';

export const TAGS = ['Subscriptions'];

/**
 * What a subscription offers next, in its state now: previews carry the subscription, a pending
 * cancellation can still be made immediate, and renew appears whenever it would go through (due,
 * or early when the next period is not billed yet: `billedThrough`).
 */
export function subscriptionActions(
  s: SubscriptionApi,
  now: Date,
  invoice: Invoice | null = null,
): ActionSpec[] {
  const self = next('self', 'getSubscription', { id: s.id });
  const pay =
    invoice && invoice.status === 'open'
      ? [
          next('payInvoice', 'payInvoice', {
            id: invoice.id,
            accountId: invoice.accountId,
            amountCents: invoice.balanceCents,
            currency: invoice.currency,
          }),
        ]
      : [];
  if (s.status === 'cancelled') return [self, ...pay];
  const changes =
    s.status === 'pending_cancellation'
      ? []
      : [
          ...(s.parentSubscriptionId ? [] : [next('changePlan', 'changeSubscriptionPlan', { id: s.id })]),
          next('changeQuantity', 'changeSubscriptionQuantity', { id: s.id }),
          ...(s.parentSubscriptionId
            ? []
            : [
                next('previewPlanChange', 'previewPlanChange', { subscriptionId: s.id }),
                next('previewAddOn', 'previewAddOn', { subscriptionId: s.id }),
              ]),
        ];
  return [
    self,
    ...changes,
    // Already ending at the period end: only an immediate cancellation is left to ask for.
    s.status === 'pending_cancellation'
      ? next('cancel', 'cancelSubscription', { id: s.id, timing: 'immediate' })
      : next('cancel', 'cancelSubscription', { id: s.id }),
    next('previewCancellation', 'previewCancellation', { subscriptionId: s.id }),
    ...(renewalRefusal(
      { ...s, currentPeriodEnd: new Date(s.currentPeriodEnd), billedThrough: new Date(s.billedThrough) },
      now,
    )
      ? []
      : [next('renew', 'renewSubscription', { id: s.id })]),
    ...pay,
  ];
}

/** The subscription in its envelope, offering to pay the invoice the operation issued. */
export const subscriptionResponse =
  (status: number, clock: Clock) =>
  (result: { subscription: SubscriptionRow; invoice: Invoice | null }, ctx: RequestContext): Presented => {
    const sub = presentSubscription(result.subscription);
    const actions = subscriptionActions(sub, clock.now(), result.invoice);
    return { status, body: envelope(ctx, sub, actions) };
  };
/** The subscription in its envelope, after an operation that issued no invoice to pay. */
export const subscriptionRowResponse =
  (clock: Clock) =>
  (row: SubscriptionRow, ctx: RequestContext): Presented => {
    const sub = presentSubscription(row);
    const actions = subscriptionActions(sub, clock.now());
    return { status: 200, body: envelope(ctx, sub, actions) };
  };

export const OPERATION_ERRORS = errorResponses(404, 502);

/** Tags of subscriptions. */
export const subscriptionTagTarget = (deps: Deps): TagTarget<SubscriptionRow> => ({
  resource: 'subscriptions',
  schema: SubscriptionSchema,
  operations: subscriptionTags,
  presenter: () => subscriptionRowResponse(deps.clock),
});
