import type { Invoice } from '../../billing/index.js';
import type { Clock } from '../../clock.js';
import { LIST_PAGING } from '../../core/agent-guide.js';
import { notFound } from '../../core/errors.js';
import { createdKey, listOfRows, NEWEST_FIRST, pageRequest } from '../../core/paging.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { type Presented, respond } from '../../http/operation.js';
import { ListEnvelope, listEnvelope } from '../../http/paging.js';
import type { TypedApp } from '../../http/types.js';
import type { OperationKey } from '../../unit-of-work/index.js';
import { cancelSubscription } from './cancel.js';
import { changeSubscription } from './change.js';
import { createSubscription } from './create.js';
import { renewSubscription } from './renew.js';
import {
  CancelBody,
  ChangePlanBody,
  ChangeQuantityBody,
  CreateSubscriptionBody,
  SubscriptionListQuery,
  SubscriptionParams,
  SubscriptionSchema,
} from './schemas.js';
import {
  getSubscription,
  listSubscriptions,
  presentSubscription,
  type SubscriptionApi,
  type SubscriptionRow,
} from './service.js';

const TAGS = ['Subscriptions'];

/**
 * What a subscription offers next, in its state now: previews carry the subscription, a pending
 * cancellation can still be made immediate, and renew appears once the period has ended.
 */
export function subscriptionActions(
  s: SubscriptionApi,
  now: Date,
  invoice: Invoice | null = null,
): ActionSpec[] {
  const self = action('self', 'GET', `/subscriptions/${s.id}`, 'read');
  const pay =
    invoice && invoice.status === 'open'
      ? [
          action('payInvoice', 'POST', `/invoices/${invoice.id}/pay`, 'commerce', {
            accountId: invoice.accountId,
            amountCents: invoice.balanceCents,
            currency: invoice.currency,
          }),
        ]
      : [];
  if (s.status === 'cancelled') return [self, ...pay];
  const base = `/subscriptions/${s.id}`;
  const changes =
    s.status === 'pending_cancellation'
      ? []
      : [
          ...(s.parentSubscriptionId
            ? []
            : [action('changePlan', 'POST', `${base}/change-plan`, 'commerce')]),
          action('changeQuantity', 'POST', `${base}/change-quantity`, 'commerce'),
          ...(s.parentSubscriptionId
            ? []
            : [
                action('previewPlanChange', 'POST', '/preview/plan-change', 'read', { subscriptionId: s.id }),
                action('previewAddOn', 'POST', '/preview/add-on', 'read', { subscriptionId: s.id }),
              ]),
        ];
  return [
    self,
    ...changes,
    // Already ending at the period end: only an immediate cancellation is left to ask for.
    s.status === 'pending_cancellation'
      ? action('cancel', 'POST', `${base}/cancel`, 'commerce', { timing: 'immediate' })
      : action('cancel', 'POST', `${base}/cancel`, 'commerce'),
    action('previewCancellation', 'POST', '/preview/cancellation', 'read', { subscriptionId: s.id }),
    ...(s.status !== 'pending_cancellation' && Date.parse(s.currentPeriodEnd) <= now.getTime()
      ? [action('renew', 'POST', `${base}/renew`, 'commerce')]
      : []),
    ...pay,
  ];
}

/** The subscription in its envelope, offering to pay the invoice the operation issued. */
const subscriptionResponse =
  (status: number, clock: Clock) =>
  (result: { subscription: SubscriptionRow; invoice: Invoice | null }, ctx: RequestContext): Presented => {
    const sub = presentSubscription(result.subscription);
    return { status, body: envelope(ctx, sub, subscriptionActions(sub, clock.now(), result.invoice)) };
  };
/** The subscription in its envelope, after an operation that issued no invoice to pay. */
const subscriptionRowResponse =
  (clock: Clock) =>
  (row: SubscriptionRow, ctx: RequestContext): Presented => {
    const sub = presentSubscription(row);
    return { status: 200, body: envelope(ctx, sub, subscriptionActions(sub, clock.now())) };
  };

const OPERATION_ERRORS = errorResponses(404, 502);

export function registerSubscriptionRoutes(app: TypedApp, deps: Deps) {
  app.get(
    '/api/v1/subscriptions',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'listSubscriptions',
        summary: 'List subscriptions',
        description:
          'The subscriptions of the tenant, newest first (add-ons included; they have ' +
          '`parentSubscriptionId`). Filters: `status`; `accountId`, matching the owner organization id or the ' +
          'billing-system account id; `orderId`; `parentSubscriptionId` (the add-ons of one subscription). ' +
          LIST_PAGING.text,
        tags: TAGS,
        querystring: SubscriptionListQuery,
        response: { 200: ListEnvelope(SubscriptionSchema, 'The subscriptions.') },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const page = pageRequest(ctx.tenantId, 'subscriptions', request.query, NEWEST_FIRST);
      const rows = await listSubscriptions(deps.db, ctx.tenantId, request.query, page);
      const where = { tenantId: ctx.tenantId, list: 'subscriptions' };
      return listEnvelope(ctx, request, listOfRows(rows, page, createdKey, where, presentSubscription), [
        action('createSubscription', 'POST', '/subscriptions', 'commerce'),
      ]);
    },
  );

  app.post(
    '/api/v1/subscriptions',
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'createSubscription',
        summary: 'Create a subscription (or buy an add-on)',
        description:
          'Subscribes an owner (`organizationId` and/or `contactId`, at least one) to a `subscription` product for ' +
          '`quantity` units. The price of one period is resolved by the pricing engine with `customerContext`; the ' +
          'first period starts now and ends one `billingInterval` later. When the owner has a billing account ' +
          '(`accountId`, or the organization’s `externalId`), the subscription is provisioned in the billing system ' +
          'first and its first period invoiced (`payInvoice` in nextActions); a billing outage is 502 and nothing is ' +
          'recorded. With `parentSubscriptionId` and an `add_on` product it buys an add-on: it ends its periods with the ' +
          'parent and its first, partial period is charged prorated (see POST /preview/add-on; pass its `previewId` to ' +
          'buy at exactly the previewed figures). With `orderId`, one subscription per order and product. Send an ' +
          'Idempotency-Key to retry safely. Event `subscription.created`; audit `subscription.create`.',
        tags: TAGS,
        body: CreateSubscriptionBody,
        response: { 201: Envelope(SubscriptionSchema, 'The new subscription.'), ...errorResponses(502) },
      },
    },
    async (request, reply) => {
      const input = { ...request.body, quantity: request.body.quantity ?? 1 };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => createSubscription(deps, ctx, input, key),
        subscriptionResponse(201, deps.clock),
      );
    },
  );

  app.get(
    '/api/v1/subscriptions/:id',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getSubscription',
        summary: 'Get a subscription',
        description:
          'The subscription: plan, quantity, price per period, status, current period and any change waiting for ' +
          'the period end (`pendingChange`). 404 when not a subscription of this tenant.',
        tags: TAGS,
        params: SubscriptionParams,
        response: { 200: Envelope(SubscriptionSchema, 'The subscription.'), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const row = await getSubscription(deps.db, ctx.tenantId, request.params.id);
      if (!row) throw notFound('Subscription');
      const sub = presentSubscription(row);
      return envelope(ctx, sub, subscriptionActions(sub, deps.clock.now()));
    },
  );

  app.post(
    '/api/v1/subscriptions/:id/change-plan',
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'changeSubscriptionPlan',
        summary: 'Change the plan of a subscription',
        description:
          'Moves the subscription to `targetProductId` following the tenant’s plan-change rule for the pair ' +
          '(direction by rank in the family, timing, proration); `timing` overrides the rule’s timing. `immediate`: ' +
          'the unused days of the current price are credited and the rest of the period at the new price charged ' +
          '(prorated by UTC days, half-up cents); `end_of_period`: status `pending_change` until the period end, ' +
          'nothing charged now. `plan_change` policies may block it (403). Exactly what POST /preview/plan-change ' +
          'shows; with its `previewId`, exactly those figures (409 if the subscription or prices changed since, 400 ' +
          'once expired). 400 for an unknown, inactive or non-subscription target, or another currency; 409 for a ' +
          'cancelled subscription. Event `subscription.changed`; audit `subscription.change`.',
        tags: TAGS,
        params: SubscriptionParams,
        body: ChangePlanBody,
        response: {
          200: Envelope(SubscriptionSchema, 'The subscription after the change.'),
          ...OPERATION_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const input = { subscriptionId: request.params.id, change: { kind: 'plan' as const, ...request.body } };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => changeSubscription(deps, ctx, input, key),
        subscriptionResponse(200, deps.clock),
      );
    },
  );

  app.post(
    '/api/v1/subscriptions/:id/change-quantity',
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'changeSubscriptionQuantity',
        summary: 'Change the quantity of a subscription',
        description:
          'Sets `quantity` (>= 1, different from now). The new price is resolved by the pricing engine; more units ' +
          'is an upgrade and fewer a downgrade for the plan-change rules of the product’s family (defaults: more now ' +
          'and prorated, fewer at the period end), `timing` overrides. `plan_change` policies see `operation: ' +
          '"change_quantity"` and `targetQuantity` (403 when blocked). 409 for a cancelled subscription. Event ' +
          '`subscription.changed`; audit `subscription.change`.',
        tags: TAGS,
        params: SubscriptionParams,
        body: ChangeQuantityBody,
        response: {
          200: Envelope(SubscriptionSchema, 'The subscription after the change.'),
          ...OPERATION_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const input = {
        subscriptionId: request.params.id,
        change: { kind: 'quantity' as const, ...request.body },
      };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => changeSubscription(deps, ctx, input, key),
        subscriptionResponse(200, deps.clock),
      );
    },
  );

  app.post(
    '/api/v1/subscriptions/:id/cancel',
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'cancelSubscription',
        summary: 'Cancel a subscription',
        description:
          '`timing: end_of_period` (default): status `pending_cancellation`, it runs to `currentPeriodEnd` and is then ' +
          'cancelled by the scheduler; `immediate`: `cancelled` now. No refund or credit for unused time. A pending ' +
          'change is dropped. Live add-ons are cancelled with it. With a `previewId` from POST /preview/cancellation, ' +
          'exactly the previewed effective date. 409 when already cancelled (or already pending cancellation, for ' +
          '`end_of_period`). Event `subscription.cancelled` (status tells which); audit `subscription.cancel`.',
        tags: TAGS,
        params: SubscriptionParams,
        body: CancelBody,
        response: {
          200: Envelope(SubscriptionSchema, 'The subscription after cancelling.'),
          ...OPERATION_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const input = { subscriptionId: request.params.id, ...request.body };
      const cancel = (ctx: RequestContext, key: OperationKey<SubscriptionRow>) =>
        cancelSubscription(deps, ctx, input, key);
      return respond(deps, request, reply, cancel, subscriptionRowResponse(deps.clock));
    },
  );

  app.post(
    '/api/v1/subscriptions/:id/renew',
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'renewSubscription',
        summary: 'Renew a subscription into its next period',
        description:
          'Once `currentPeriodEnd` has passed (409 `subscription_not_due` before; the scheduler does this on its own): applies a pending ' +
          'change, starts the next period, invoices it (billing-linked subscriptions) and opens a payment session for ' +
          'it (`payment.session_created`). 409 for a cancelled or pending-cancellation subscription. Event ' +
          '`subscription.renewed`; audit `subscription.renew`.',
        tags: TAGS,
        params: SubscriptionParams,
        response: {
          200: Envelope(SubscriptionSchema, 'The subscription in its new period.'),
          ...OPERATION_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const input = { subscriptionId: request.params.id };
      const renew = (ctx: RequestContext, key: OperationKey<SubscriptionRow>) =>
        renewSubscription(deps, ctx, input, key);
      return respond(deps, request, reply, renew, subscriptionRowResponse(deps.clock));
    },
  );
}
