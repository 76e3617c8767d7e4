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
import type { TagTarget } from '../../http/tag-routes.js';
import type { TypedApp } from '../../http/types.js';
import type { OperationKey } from '../../unit-of-work/index.js';
import { cancelSubscription } from './cancel.js';
import { changeSubscription } from './change.js';
import { createSubscription } from './create.js';
import { type RenewalResult, renewalRefusal, renewSubscription } from './renew.js';
import {
  CancelBody,
  ChangePlanBody,
  ChangeQuantityBody,
  CreateSubscriptionBody,
  RenewalSchema,
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
import { subscriptionTags } from './tags.js';

const TAGS = ['Subscriptions'];

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
    ...(renewalRefusal(
      { ...s, currentPeriodEnd: new Date(s.currentPeriodEnd), billedThrough: new Date(s.billedThrough) },
      now,
    )
      ? []
      : [action('renew', 'POST', `${base}/renew`, 'commerce')]),
    ...pay,
  ];
}

/** The subscription in its envelope, offering to pay the invoice the operation issued. */
const subscriptionResponse =
  (status: number, clock: Clock) =>
  (result: { subscription: SubscriptionRow; invoice: Invoice | null }, ctx: RequestContext): Presented => {
    const sub = presentSubscription(result.subscription);
    const actions = subscriptionActions(sub, clock.now(), result.invoice);
    return { status, body: envelope(ctx, sub, actions) };
  };
/** The subscription in its envelope, after an operation that issued no invoice to pay. */
const subscriptionRowResponse =
  (clock: Clock) =>
  (row: SubscriptionRow, ctx: RequestContext): Presented => {
    const sub = presentSubscription(row);
    const actions = subscriptionActions(sub, clock.now());
    return { status: 200, body: envelope(ctx, sub, actions) };
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
          'The subscriptions of the tenant, add-ons included (they have `parentSubscriptionId`), newest first. ' +
          LIST_PAGING.text,
        tags: TAGS,
        querystring: SubscriptionListQuery,
        response: { 200: ListEnvelope(SubscriptionSchema, 'The subscriptions.') },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const where = { tenantId: ctx.tenantId, list: 'subscriptions', keys: deps.keyRing };
      const page = pageRequest(where, request.query, NEWEST_FIRST);
      const rows = await listSubscriptions(deps.db, ctx.tenantId, request.query, page);
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
          'Subscribes an owner (`organizationId` and/or `contactId`, at least one) to a `subscription` product, ' +
          'priced with `customerContext`; the first period starts now. With a billing account (`accountId` or the ' +
          'organization’s `externalId`) it is provisioned in the billing system and its first period invoiced ' +
          '(`payInvoice` action); a billing outage is 502 with nothing recorded. With `parentSubscriptionId` and ' +
          'an `add_on` product it buys an add-on renewing with the parent, its first period prorated. One ' +
          'subscription per `orderId` and product. Send an Idempotency-Key to retry safely. Event ' +
          '`subscription.created`; audit `subscription.create`.',
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
          'the period end (`pendingChange`).',
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
          'Moves to `targetProductId` under the tenant’s plan-change rule for the pair (direction by rank in the ' +
          'family, timing, proration). `immediate`: unused days of the current price credited, the rest of the ' +
          'period charged at the new price (by UTC days, half-up cents); `end_of_period`: `pending_change` until ' +
          'the period end, nothing charged now. 400 for an unknown, inactive or non-subscription target or ' +
          'another currency; 403 when `plan_change` policies block; 409 when cancelled. Event ' +
          '`subscription.changed`; audit `subscription.change`.',
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
          'Sets `quantity` (different from now), re-priced. More units is an upgrade, fewer a downgrade under the ' +
          'family’s plan-change rules (default: more now, prorated; fewer at the period end). `plan_change` ' +
          'policies see `operation: "change_quantity"` and `targetQuantity` (403 when blocked). 409 when ' +
          'cancelled. Event `subscription.changed`; audit `subscription.change`.',
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
          '`end_of_period` (default): `pending_cancellation`, cancelled by the scheduler (see `timing`). ' +
          '`immediate`: `cancelled` now, giving back the unused time per `refund` (`credit.granted` or ' +
          '`refund.succeeded`; nothing to refund: 409 `payment_not_refundable`). The amounts and date equal POST ' +
          '/preview/cancellation. A pending change is dropped; live ' +
          'add-ons are cancelled too. 409 when already cancelled (or pending cancellation, for `end_of_period`). ' +
          'Event `subscription.cancelled` (status tells which); audit `subscription.cancel`.',
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
        summary: 'Renew a subscription (bill its next period)',
        description:
          'Bills the next period. When due (`currentPeriodEnd` passed; the scheduler does it too): applies a ' +
          'pending change, starts and invoices the next period, opens a payment session. Earlier (`renewal: ' +
          '"early"`): invoices the next period now with a payment session; it starts at `currentPeriodEnd`, not ' +
          'invoiced again. 409 `subscription_not_due` when already billed ahead or a change is pending; 409 ' +
          '`conflict` when cancelled or ending. Event `subscription.renewed` as a period starts; audit ' +
          '`subscription.renew`.',
        tags: TAGS,
        params: SubscriptionParams,
        response: {
          200: Envelope(RenewalSchema, 'The subscription, and the period the renewal billed.'),
          ...OPERATION_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const input = { subscriptionId: request.params.id };
      const renew = (ctx: RequestContext, key: OperationKey<RenewalResult>) =>
        renewSubscription(deps, ctx, input, key);
      const present = (r: RenewalResult, ctx: RequestContext): Presented => {
        const sub = presentSubscription(r.subscription);
        const data = {
          ...sub,
          renewal: r.kind,
          renewedPeriod: r.renewedPeriod,
          invoiceId: r.invoice?.id ?? null,
          paymentSessionId: r.paymentSessionId,
        };
        const actions = subscriptionActions(sub, deps.clock.now(), r.invoice);
        return { status: 200, body: envelope(ctx, data, actions) };
      };
      return respond(deps, request, reply, renew, present);
    },
  );
}

/** Tags of subscriptions. */
export const subscriptionTagTarget = (deps: Deps): TagTarget<SubscriptionRow> => ({
  resource: 'subscriptions',
  schema: SubscriptionSchema,
  operations: subscriptionTags,
  presenter: () => subscriptionRowResponse(deps.clock),
});
