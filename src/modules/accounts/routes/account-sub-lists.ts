import type { TSchema } from 'typebox';
import type { BillingAdapter, BillingResult } from '../../../billing/adapter.js';
import { unwrapBilling } from '../../../billing/http.js';
import {
  BillingPaymentMethodSchema,
  BillingSubscriptionSchema,
  InvoiceSchema,
  presentBillingPaymentMethod,
  presentBillingSubscription,
  presentInvoice,
} from '../../../billing/schemas.js';
import { BILLING_SUB_LISTS, LIST_PAGING } from '../../../core/agent-guide.js';
import { requireCtx } from '../../../http/auth.js';
import { type DeclaredRoute, defineRoute } from '../../../http/declared-route.js';
import type { Deps } from '../../../http/deps.js';
import { type ActionSpec, next } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../../http/paging.js';
import { localAccountPaymentMethods } from '../../payment-methods/index.js';
import { AccountIdParams } from '../schemas.js';
import { billingAccountFor } from '../service.js';
import { TAGS } from './shared.js';

/** A list an account's billing-system account holds (and local items held under it). */
export interface SubList<T> {
  path: string;
  operationId: string;
  summary: string;
  about: string;
  item: TSchema;
  list(adapter: BillingAdapter, accountId: string): Promise<BillingResult<T[]>>;
  present(item: T): unknown;
  /** Tenant-owned items listed after the billing system's, held under any of `accountIds`. */
  local?(deps: Deps, tenantId: string, accountIds: string[]): Promise<unknown[]>;
  actions: ActionSpec[];
}

/** The billing sub-lists share one shape: the billing account's items, paged in memory. */
function subListRoute<T>(spec: SubList<T>): DeclaredRoute {
  return defineRoute({
    method: 'GET',
    path: `/accounts/:id/${spec.path}`,
    operationId: spec.operationId,
    summary: spec.summary,
    description: `${spec.about} ${BILLING_SUB_LISTS.text} ${LIST_PAGING.text}`,
    tags: TAGS,
    scope: 'read',
    params: AccountIdParams,
    query: PageQuery,
    responses: {
      200: ListEnvelope(spec.item, spec.summary),
      ...errorResponses(404, 502),
    },
    handler: async (request, _reply, deps) => {
      const ctx = requireCtx(request);
      const { adapter, accountId } = await billingAccountFor(deps, ctx.tenantId, request.params.id);
      const items = unwrapBilling(await spec.list(adapter, accountId), 'Billing account');
      // Local items may be held under the billing account id or the organization id of the path.
      const local = spec.local ? await spec.local(deps, ctx.tenantId, [accountId, request.params.id]) : [];
      return inMemoryList(
        deps.keyRing,
        ctx,
        request,
        spec.operationId,
        [...items.map(spec.present), ...local],
        spec.actions,
      );
    },
  });
}

export const accountSubListRoutes: DeclaredRoute[] = [
  subListRoute({
    path: 'invoices',
    operationId: 'listAccountInvoices',
    summary: 'List an account’s invoices',
    about:
      'The invoices of the account’s billing-system account, newest first. `amount` and `balance` (still to ' +
      'pay) are decimals in major units (`amountCents`/`balanceCents` in minor units). Pay an open invoice ' +
      'with the `createPaymentSession` action.',
    item: InvoiceSchema,
    list: (adapter, accountId) => adapter.listInvoices(accountId),
    present: presentInvoice,
    actions: [next('createPaymentSession', 'createPaymentSession')],
  }),

  subListRoute({
    path: 'subscriptions',
    operationId: 'listAccountSubscriptions',
    summary: 'List an account’s subscriptions',
    about:
      'The subscriptions of the account’s billing-system account, newest first. Start a new one with the ' +
      '`createSubscription` action; `catalog` lists what can be subscribed to.',
    item: BillingSubscriptionSchema,
    list: (adapter, accountId) => adapter.listSubscriptions(accountId),
    present: presentBillingSubscription,
    actions: [next('createSubscription', 'createSubscription'), next('catalog', 'getCatalog')],
  }),

  subListRoute({
    path: 'payment-methods',
    operationId: 'listAccountPaymentMethods',
    summary: 'List an account’s payment methods',
    about:
      'The payment methods of the account’s billing-system account (`source: "billing"`), then the local ' +
      'references (`source: "local"`) held under its id or the path’s id; each newest first. `isDefault` ' +
      'holds per source and `accountId`, so two defaults may be listed. Add one with the `addPaymentMethod` action.',
    item: BillingPaymentMethodSchema,
    list: (adapter, accountId) => adapter.listPaymentMethods(accountId),
    present: presentBillingPaymentMethod,
    local: (deps, tenantId, accountIds) => localAccountPaymentMethods(deps.db, tenantId, accountIds),
    actions: [next('addPaymentMethod', 'createPaymentMethod')],
  }),
];
