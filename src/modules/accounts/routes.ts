import type { TSchema } from 'typebox';
import type { BillingAdapter, BillingResult } from '../../billing/adapter.js';
import { unwrapBilling } from '../../billing/http.js';
import {
  BillingPaymentMethodSchema,
  BillingSubscriptionSchema,
  InvoiceSchema,
  presentBillingAccount,
  presentBillingPaymentMethod,
  presentBillingSubscription,
  presentInvoice,
} from '../../billing/schemas.js';
import { BILLING_SUB_LISTS, LIST_PAGING } from '../../core/agent-guide.js';
import { notFound } from '../../core/errors.js';
import { createdKey, listOfRows, NEWEST_FIRST, pageRequest } from '../../core/paging.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope, unavailable } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { accountCreatedExample, accountUpdatedExample } from '../../http/examples.js';
import { type Presented, respond } from '../../http/operation.js';
import { inMemoryList, ListEnvelope, listEnvelope, PageQuery } from '../../http/paging.js';
import type { TagTarget } from '../../http/tag-routes.js';
import type { TypedApp } from '../../http/types.js';
import { localAccountPaymentMethods } from '../payment-methods/index.js';
import { createAccount, updateAccount } from './operations.js';
import {
  AccountCreate,
  AccountIdParams,
  AccountListQuery,
  AccountOrBillingSchema,
  AccountSchema,
  AccountUpdate,
} from './schemas.js';
import {
  type AccountApi,
  billingAccountFor,
  listAccounts,
  type OrganizationRow,
  presentAccount,
  resolveAccount,
} from './service.js';
import { accountTags } from './tags.js';

const TAGS = ['Accounts'];
const BASE = '/api/v1/accounts';

const SUB_LIST_RULES = BILLING_SUB_LISTS.text;

/** Why a tenant-owned account has no billing data to list, or undefined when it has. */
function missingBillingLink(adapter: BillingAdapter | null, externalId: string | null): string | undefined {
  if (!adapter) return 'This tenant has no active billing integration, so the account has no billing data.';
  if (externalId === null)
    return 'No billing account is linked: the account has no externalId (set at creation).';
  if (!adapter.isAccountId(externalId))
    return 'No billing account is linked: the account’s externalId is not a billing account id.';
  return undefined;
}

/**
 * What an account links to: `update` only where the account is ours to change, a cart for it,
 * and the billing sub-lists SPEC.md requires, with `allowed: false` and the reason when no billing
 * account is linked (they could only answer 404).
 */
function accountActions(id: string, tenantOwned: boolean, noBilling?: string): ActionSpec[] {
  const path = `/accounts/${encodeURIComponent(id)}`;
  const billing = (spec: ActionSpec) => (noBilling ? unavailable(spec, noBilling) : spec);
  return [
    action('self', 'GET', path, 'read'),
    ...(tenantOwned
      ? [
          action('update', 'PATCH', path, 'commerce'),
          action('createCart', 'POST', '/carts', 'commerce', { organizationId: id }),
        ]
      : []),
    billing(action('invoices', 'GET', `${path}/invoices`, 'read')),
    billing(action('subscriptions', 'GET', `${path}/subscriptions`, 'read')),
    billing(action('paymentMethods', 'GET', `${path}/payment-methods`, 'read')),
  ];
}

interface SubList<T> {
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

function registerSubList<T>(app: TypedApp, deps: Deps, spec: SubList<T>) {
  app.get(
    `${BASE}/:id/${spec.path}`,
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: spec.operationId,
        summary: spec.summary,
        description: `${spec.about} ${SUB_LIST_RULES} ${LIST_PAGING.text}`,
        tags: TAGS,
        params: AccountIdParams,
        querystring: PageQuery,
        response: {
          200: ListEnvelope(spec.item, spec.summary),
          ...errorResponses(404, 502),
        },
      },
    },
    async (request) => {
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
  );
}

/** A tenant-owned account in its envelope. */
const accountResponse =
  (status: number, adapter: BillingAdapter | null) =>
  (account: AccountApi, ctx: RequestContext): Presented => ({
    status,
    body: envelope(
      ctx,
      account,
      accountActions(account.id, true, missingBillingLink(adapter, account.externalId)),
    ),
  });

export function registerAccountRoutes(app: TypedApp, deps: Deps) {
  app.post(
    BASE,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'createAccount',
        summary: 'Create an account',
        description:
          'Creates a tenant-owned account (organization) with a UUID `id`. Only `name` is required; optional ' +
          'fields may be null. `externalId` cannot change later; one already held by another account is 409 ' +
          '`conflict` naming it (nextActions `getAccount`). Emits `account.created`.',
        tags: TAGS,
        body: AccountCreate,
        response: {
          201: Envelope(AccountSchema, 'The new account.', accountCreatedExample),
          ...errorResponses(409),
        },
      },
    },
    async (request, reply) =>
      respond(
        deps,
        request,
        reply,
        (ctx, key) => createAccount(deps, ctx, request.body, key),
        accountResponse(201, await deps.billing.forTenant(deps.db, requireCtx(request).tenantId)),
      ),
  );

  app.get(
    BASE,
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'listAccounts',
        summary: 'List accounts',
        description:
          'The tenant-owned accounts, newest first (a billing-system account is read with GET /accounts/{id}). ' +
          LIST_PAGING.text,
        tags: TAGS,
        querystring: AccountListQuery,
        response: { 200: ListEnvelope(AccountSchema, 'The accounts.') },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const where = { tenantId: ctx.tenantId, list: 'accounts', keys: deps.keyRing };
      const page = pageRequest(where, request.query, NEWEST_FIRST);
      const rows = await listAccounts(deps.db, ctx.tenantId, request.query, page);
      return listEnvelope(ctx, request, listOfRows(rows, page, createdKey, where, presentAccount), [
        action('createAccount', 'POST', '/accounts', 'commerce'),
      ]);
    },
  );

  app.get(
    `${BASE}/:id`,
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getAccount',
        summary: 'Get an account',
        description:
          'A tenant-owned account; else, when the id matches the account-id format of the tenant’s active billing ' +
          'integration, the billing-system account read live: `source: "billing"`, account number, open balance ' +
          '(decimal and minor units), contacts, and no `update` action. 404 when neither has it; 502 ' +
          '`billing_unavailable` when the billing system is down.',
        tags: TAGS,
        params: AccountIdParams,
        response: {
          200: Envelope(AccountOrBillingSchema, 'The account.', accountCreatedExample),
          ...errorResponses(404, 502),
        },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const resolved = await resolveAccount(deps, ctx.tenantId, request.params.id);
      if (!resolved) throw notFound('Account');
      if (resolved.source === 'local') {
        const adapter = await deps.billing.forTenant(deps.db, ctx.tenantId);
        const noBilling = missingBillingLink(adapter, resolved.account.externalId);
        return envelope(ctx, resolved.account, accountActions(resolved.account.id, true, noBilling));
      }
      return envelope(
        ctx,
        presentBillingAccount(resolved.account),
        accountActions(resolved.account.id, false),
      );
    },
  );

  app.patch(
    `${BASE}/:id`,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'updateAccount',
        summary: 'Update an account',
        description:
          'Changes the given fields (at least one) of a tenant-owned account; null clears an optional field. ' +
          '`externalId` cannot be changed (400). A billing-system account is not tenant-owned: 404. The audit ' +
          'entry records the changed fields before and after. Emits `account.updated`.',
        tags: TAGS,
        params: AccountIdParams,
        body: AccountUpdate,
        response: {
          200: Envelope(AccountSchema, 'The updated account.', accountUpdatedExample),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const input = { accountId: request.params.id, changes: request.body };
      const adapter = await deps.billing.forTenant(deps.db, requireCtx(request).tenantId);
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => updateAccount(deps, ctx, input, key),
        accountResponse(200, adapter),
      );
    },
  );

  registerSubList(app, deps, {
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
    actions: [action('createPaymentSession', 'POST', '/payments', 'commerce')],
  });

  registerSubList(app, deps, {
    path: 'subscriptions',
    operationId: 'listAccountSubscriptions',
    summary: 'List an account’s subscriptions',
    about:
      'The subscriptions of the account’s billing-system account, newest first. Start a new one with the ' +
      '`createSubscription` action; `catalog` lists what can be subscribed to.',
    item: BillingSubscriptionSchema,
    list: (adapter, accountId) => adapter.listSubscriptions(accountId),
    present: presentBillingSubscription,
    actions: [
      action('createSubscription', 'POST', '/subscriptions', 'commerce'),
      action('catalog', 'GET', '/catalog', 'read'),
    ],
  });

  registerSubList(app, deps, {
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
    actions: [action('addPaymentMethod', 'POST', '/payment-methods', 'commerce')],
  });
}

/** Tags of the tenant's own accounts. */
export const accountTagTarget = (deps: Deps): TagTarget<OrganizationRow> => ({
  resource: 'accounts',
  schema: AccountSchema,
  operations: accountTags,
  presenter: async (tenantId) => {
    const present = accountResponse(200, await deps.billing.forTenant(deps.db, tenantId));
    return (row, ctx) => present(presentAccount(row), ctx);
  },
});
