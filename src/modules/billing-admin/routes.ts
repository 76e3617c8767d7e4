import { Type } from 'typebox';
import {
  BillingAccountSchema,
  BillingPaymentMethodSchema,
  type Invoice,
  InvoiceSchema,
  presentBillingAccount,
  presentBillingPaymentMethod,
  presentInvoice,
} from '../../billing/index.js';
import { LIST_PAGING } from '../../core/agent-guide.js';
import { AppError, validationFailed } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { type Presented, respond } from '../../http/operation.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../http/paging.js';
import type { TypedApp } from '../../http/types.js';
import { compileBodyValidator, validationDetails } from '../../http/validation.js';
import {
  addBillingPaymentMethod,
  builtinEngineFor,
  closeBillingInvoice,
  issueBillingInvoice,
  type OperatorResult,
  openBillingAccount,
  removeBillingIntegration,
  setBillingIntegration,
} from './operations.js';
import {
  AccountIdParams,
  AddPaymentMethodBody,
  CreateBillingAccountBody,
  IntegrationSchema,
  InvoiceIdParams,
  IssueInvoiceBody,
  putIntegrationBody,
} from './schemas.js';

const admin = { public: true, scope: 'admin' } as const;
const INTEGRATION = '/api/v1/admin/billing-integration';
const BUILTIN = '/api/v1/admin/billing';

/** The adapter's config, validated against its JSON Schema: 400 naming `config.<field>`. */
function validConfig(deps: Deps, adapter: string, raw: unknown) {
  const factory = deps.billing.factory(adapter);
  if (!factory)
    throw validationFailed('adapter', 'enum', `adapter must be one of: ${deps.billing.names().join(', ')}`);
  const config = (raw ?? {}) as Record<string, unknown>;
  const validate = compileBodyValidator(factory.configSchema);
  if (!validate(config)) {
    const details = validationDetails('body', validate.errors ?? []).map((d) => ({
      ...d,
      field: d.field === 'body' ? 'config' : `config.${d.field}`,
      message: `config.${d.message}`,
    }));
    throw new AppError('validation_failed', `Invalid config for adapter ${factory.name}`, details);
  }
  return { adapter: factory.name, config };
}

export function registerBillingAdminRoutes(app: TypedApp, deps: Deps) {
  const available = () =>
    deps.billing.names().map((name) => {
      const f = deps.billing.factory(name);
      return {
        name,
        description: f?.description ?? '',
        configSchema: (f?.configSchema ?? {}) as Record<string, unknown>,
      };
    });
  const integrationActions = [
    action('self', 'GET', '/admin/billing-integration', 'admin'),
    action('update', 'PUT', '/admin/billing-integration', 'admin'),
    action('delete', 'DELETE', '/admin/billing-integration', 'admin'),
  ];

  app.get(
    INTEGRATION,
    {
      config: admin,
      schema: {
        operationId: 'getBillingIntegration',
        summary: 'Get the billing integration',
        description:
          'The tenant’s active billing integration (`adapter` null when none: then account invoices, subscriptions ' +
          'and payment methods answer 404) and the adapters this deployment offers, each with the JSON Schema of its config.',
        tags: ['Billing admin'],
        response: { 200: Envelope(IntegrationSchema, 'The integration and the available adapters.') },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const current = await deps.billing.integration(deps.db, ctx.tenantId);
      return envelope(
        ctx,
        {
          adapter: current?.adapter ?? null,
          config: current?.config ?? null,
          createdAt: current ? iso(current.createdAt) : null,
          updatedAt: current ? iso(current.updatedAt) : null,
          availableAdapters: available(),
        },
        integrationActions,
      );
    },
  );

  app.put(
    INTEGRATION,
    {
      config: admin,
      schema: {
        operationId: 'putBillingIntegration',
        summary: 'Set the billing integration',
        description:
          'Makes `adapter` the tenant’s one active billing integration, replacing any other, with `config` ' +
          'validated against the adapter’s configSchema (400 naming `config.<field>`).',
        tags: ['Billing admin'],
        body: putIntegrationBody(deps.billing.names()),
        response: { 200: Envelope(IntegrationSchema, 'The integration now active.') },
      },
    },
    async (request, reply) => {
      const input = validConfig(deps, request.body.adapter, request.body.config);
      const saved = ({ at }: { at: Date }, ctx: RequestContext): Presented => ({
        status: 200,
        body: envelope(
          ctx,
          { ...input, createdAt: iso(at), updatedAt: iso(at), availableAdapters: available() },
          integrationActions,
        ),
      });
      return respond(deps, request, reply, (ctx, key) => setBillingIntegration(deps, ctx, input, key), saved);
    },
  );

  app.delete(
    INTEGRATION,
    {
      config: admin,
      schema: {
        operationId: 'deleteBillingIntegration',
        summary: 'Remove the billing integration',
        description:
          'Deactivates billing for the tenant; billing data stays in the billing system. 404 when none is active.',
        tags: ['Billing admin'],
        response: { 204: Type.Null({ description: 'Removed.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) =>
      respond(
        deps,
        request,
        reply,
        (ctx, key) => removeBillingIntegration(deps, ctx, {}, key),
        (): Presented => ({ status: 204, body: undefined }),
      ),
  );

  registerBuiltinOperatorRoutes(app, deps);
}

/** Operator endpoints of the built-in engine, so a tenant can be run entirely on it. */
function registerBuiltinOperatorRoutes(app: TypedApp, deps: Deps) {
  const tags = ['Billing admin'];
  const accountActions = (id: string) => [
    action('account', 'GET', `/accounts/${id}`, 'read'),
    action('invoices', 'GET', `/accounts/${id}/invoices`, 'read'),
    action('issueInvoice', 'POST', `/admin/billing/accounts/${id}/invoices`, 'admin'),
  ];
  const accountResponse = (r: OperatorResult, ctx: RequestContext): Presented => {
    const account = (r as Extract<OperatorResult, { action: 'open_account' }>).account;
    return { status: 201, body: envelope(ctx, presentBillingAccount(account), accountActions(account.id)) };
  };
  const invoiceResponse =
    (status: number) =>
    (r: OperatorResult, ctx: RequestContext): Presented => {
      const invoice = (r as Extract<OperatorResult, { invoice: Invoice }>).invoice;
      return { status, body: envelope(ctx, presentInvoice(invoice), invoiceActions(invoice)) };
    };
  const paymentMethodResponse = (r: OperatorResult, ctx: RequestContext): Presented => {
    const made = r as Extract<OperatorResult, { action: 'add_payment_method' }>;
    return {
      status: 201,
      body: envelope(ctx, presentBillingPaymentMethod(made.method), accountActions(made.accountId)),
    };
  };
  const invoiceActions = (invoice: Invoice): ActionSpec[] => [
    action('accountInvoices', 'GET', `/accounts/${invoice.accountId}/invoices`, 'read'),
    ...(invoice.status === 'open'
      ? [
          action('pay', 'POST', `/invoices/${invoice.id}/pay`, 'commerce'),
          action('void', 'POST', `/admin/billing/invoices/${invoice.id}/void`, 'admin'),
        ]
      : []),
  ];

  app.post(
    `${BUILTIN}/accounts`,
    {
      config: admin,
      schema: {
        operationId: 'createBillingAccount',
        summary: 'Open a built-in billing account',
        description:
          'Opens an account in the built-in billing engine (id `ba_` + 20 characters [0-9a-z], number `A-000001`...). ' +
          'Link it to a local account by setting that account’s `externalId` to the id.',
        tags,
        body: CreateBillingAccountBody,
        response: { 201: Envelope(BillingAccountSchema, 'The new billing account.'), ...errorResponses(502) },
      },
    },
    async (request, reply) => {
      const { name, currency, contacts } = request.body;
      const input = {
        name,
        currency,
        contacts: (contacts ?? []).map((c) => ({
          name: c.name ?? null,
          email: c.email ?? null,
          phone: c.phone ?? null,
        })),
      };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => openBillingAccount(deps, ctx, input, key),
        accountResponse,
      );
    },
  );

  app.get(
    `${BUILTIN}/accounts`,
    {
      config: admin,
      schema: {
        operationId: 'listBillingAccounts',
        summary: 'List built-in billing accounts',
        description: `Every account of the built-in billing engine for this tenant, newest first, with open balances. ${LIST_PAGING.text}`,
        tags,
        querystring: PageQuery,
        response: {
          200: ListEnvelope(BillingAccountSchema, 'The billing accounts.'),
          ...errorResponses(502),
        },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const accounts = await (await builtinEngineFor(deps, ctx.tenantId)).listAccounts();
      return inMemoryList(
        deps.keyRing,
        ctx,
        request,
        'billing-accounts',
        accounts.map(presentBillingAccount),
        [action('create', 'POST', '/admin/billing/accounts', 'admin')],
      );
    },
  );

  app.post(
    `${BUILTIN}/accounts/:accountId/invoices`,
    {
      config: {
        ...admin,
        createdAt: [{ collection: '/api/v1/invoices' }, { collection: '/api/v1/admin/billing/invoices' }],
      },
      schema: {
        operationId: 'issueBillingInvoice',
        summary: 'Issue an invoice',
        description:
          'Issues an open invoice on a built-in billing account in the account’s currency, from lines of quantity x ' +
          'unit amount (minor units). Emits `invoice.created`. With an Idempotency-Key, a retry never issues twice.',
        tags,
        params: AccountIdParams,
        body: IssueInvoiceBody,
        response: { 201: Envelope(InvoiceSchema, 'The issued invoice.'), ...errorResponses(404, 502) },
      },
    },
    async (request, reply) => {
      const input = {
        accountId: request.params.accountId,
        lines: request.body.lines.map((l) => ({
          description: l.description,
          quantity: l.quantity ?? 1,
          unitAmountCents: l.unitAmountCents,
        })),
        dueDate: request.body.dueDate,
      };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => issueBillingInvoice(deps, ctx, input, key),
        invoiceResponse(201),
      );
    },
  );

  for (const [verb, status] of [
    ['void', 'void'],
    ['mark-uncollectible', 'uncollectible'],
  ] as const) {
    app.post(
      `${BUILTIN}/invoices/:invoiceId/${verb}`,
      {
        config: admin,
        schema: {
          operationId: verb === 'void' ? 'voidBillingInvoice' : 'markBillingInvoiceUncollectible',
          summary: verb === 'void' ? 'Void an invoice' : 'Write off an invoice',
          description:
            `Moves an open built-in invoice to \`${status}\` (already \`${status}\`: returned unchanged); 409 when it is closed otherwise, 404 when unknown.` +
            (verb === 'void'
              ? ' A partly paid invoice (payments or credit) is not voided: 409 `conflict` naming the amount paid; refund the payments first, or write it off.'
              : ''),
          tags,
          params: InvoiceIdParams,
          response: { 200: Envelope(InvoiceSchema, 'The invoice.'), ...errorResponses(404, 409, 502) },
        },
      },
      async (request, reply) => {
        const input = { invoiceId: request.params.invoiceId, status };
        return respond(
          deps,
          request,
          reply,
          (ctx, key) => closeBillingInvoice(deps, ctx, input, key),
          invoiceResponse(200),
        );
      },
    );
  }

  app.post(
    `${BUILTIN}/accounts/:accountId/payment-methods`,
    {
      config: {
        ...admin,
        // A billing payment method has no operations of its own: its account's follow.
        createdAt: [{ collection: '/api/v1/admin/billing/accounts', id: '$request.path.accountId' }],
      },
      schema: {
        operationId: 'addBillingPaymentMethod',
        summary: 'Add a payment method in the billing engine',
        description:
          'Stores a payment method on a built-in billing account (as a payment provider would); the first one ' +
          'becomes the default. It shows in GET /accounts/{id}/payment-methods with `source: billing`.',
        tags,
        params: AccountIdParams,
        body: AddPaymentMethodBody,
        response: {
          201: Envelope(BillingPaymentMethodSchema, 'The stored method.'),
          ...errorResponses(404, 502),
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const input = {
        accountId: request.params.accountId,
        method: {
          type: b.type ?? 'card',
          cardType: b.cardType ?? null,
          lastFour: b.lastFour ?? '0000',
          expirationMonth: b.expirationMonth ?? null,
          expirationYear: b.expirationYear ?? null,
        },
      };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => addBillingPaymentMethod(deps, ctx, input, key),
        paymentMethodResponse,
      );
    },
  );
}
