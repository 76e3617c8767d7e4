import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { BuiltinBilling } from '../../billing/builtin/index.js';
import {
  BillingAccountSchema,
  BillingPaymentMethodSchema,
  type Invoice,
  InvoiceSchema,
  presentBillingAccount,
  presentBillingPaymentMethod,
  presentInvoice,
  unwrapBilling,
} from '../../billing/index.js';
import { AppError, validationFailed } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import { requireCtx } from '../../http/auth.js';
import type { Deps } from '../../http/deps.js';
import { action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { runMutation } from '../../http/mutation.js';
import type { TypedApp } from '../../http/types.js';
import { compileBodyValidator, validationDetails } from '../../http/validation.js';
import { deleteIntegration, saveIntegration } from './integration.js';
import {
  AccountIdParams,
  AddPaymentMethodBody,
  CreateBillingAccountBody,
  IntegrationSchema,
  InvoiceIdParams,
  IssueInvoiceBody,
  PutIntegrationBody,
} from './schemas.js';

const admin = { public: true, scope: 'admin' } as const;
const INTEGRATION = '/api/v1/admin/billing-integration';
const BUILTIN = '/api/v1/admin/billing';

/** The tenant's built-in engine, with the integration's config when builtin is the active adapter. */
async function builtinEngine(deps: Deps, tenantId: string): Promise<BuiltinBilling> {
  const integration = await deps.billing.integration(deps.db, tenantId);
  const config = integration?.adapter === 'builtin' ? integration.config : {};
  return deps.billing.adapter('builtin', tenantId, config) as BuiltinBilling;
}

/** An idempotency key for the engine derived from the request: its Idempotency-Key, else its id. */
const operationKey = (request: FastifyRequest, operation: string) => {
  const header = request.headers['idempotency-key'];
  return `${operation}:${typeof header === 'string' ? header : request.id}`;
};

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
        body: PutIntegrationBody,
        response: { 200: Envelope(IntegrationSchema, 'The integration now active.') },
      },
    },
    async (request, reply) => {
      const factory = deps.billing.factory(request.body.adapter);
      if (!factory) {
        throw validationFailed(
          'adapter',
          'enum',
          `adapter must be one of: ${deps.billing.names().join(', ')}`,
        );
      }
      const config = (request.body.config ?? {}) as Record<string, unknown>;
      const validate = compileBodyValidator(factory.configSchema);
      if (!validate(config)) {
        const details = validationDetails('body', validate.errors ?? []).map((d) => ({
          ...d,
          field: d.field === 'body' ? 'config' : `config.${d.field}`,
          message: `config.${d.message}`,
        }));
        throw new AppError('validation_failed', `Invalid config for adapter ${factory.name}`, details);
      }
      return runMutation(deps, request, reply, async (m) => {
        await saveIntegration(m.tx, m.ctx.tenantId, factory.name, config, m.now);
        await m.audit({
          action: 'billing_integration.update',
          resourceType: 'billing_integration',
          resourceId: m.ctx.tenantId,
          details: { after: { adapter: factory.name } },
        });
        const data = {
          adapter: factory.name,
          config,
          createdAt: iso(m.now),
          updatedAt: iso(m.now),
          availableAdapters: available(),
        };
        return { status: 200, body: envelope(m.ctx, data, integrationActions) };
      });
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
      runMutation(deps, request, reply, async (m) => {
        if (!(await deleteIntegration(m.tx, m.ctx.tenantId))) {
          throw new AppError('not_found', 'No active billing integration');
        }
        await m.audit({
          action: 'billing_integration.delete',
          resourceType: 'billing_integration',
          resourceId: m.ctx.tenantId,
        });
        return { status: 204, body: undefined };
      }),
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
  const invoiceActions = (invoice: Invoice) => [
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
      const ctx = requireCtx(request);
      const engine = await builtinEngine(deps, ctx.tenantId);
      const { name, currency, contacts } = request.body;
      const account = await engine.createAccount(
        {
          name,
          currency,
          contacts: (contacts ?? []).map((c) => ({
            name: c.name ?? null,
            email: c.email ?? null,
            phone: c.phone ?? null,
          })),
        },
        operationKey(request, 'admin-account'),
      );
      return runMutation(deps, request, reply, async (m) => {
        await m.audit({
          action: 'billing_account.create',
          resourceType: 'billing_account',
          resourceId: account.id,
        });
        return {
          status: 201,
          body: envelope(m.ctx, presentBillingAccount(account), accountActions(account.id)),
        };
      });
    },
  );

  app.get(
    `${BUILTIN}/accounts`,
    {
      config: admin,
      schema: {
        operationId: 'listBillingAccounts',
        summary: 'List built-in billing accounts',
        description:
          'Every account of the built-in billing engine for this tenant, newest first, with open balances.',
        tags,
        response: {
          200: Envelope(Type.Array(BillingAccountSchema), 'The billing accounts.'),
          ...errorResponses(502),
        },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const accounts = await (await builtinEngine(deps, ctx.tenantId)).listAccounts();
      return envelope(ctx, accounts.map(presentBillingAccount), [
        action('create', 'POST', '/admin/billing/accounts', 'admin'),
      ]);
    },
  );

  app.post(
    `${BUILTIN}/accounts/:accountId/invoices`,
    {
      config: admin,
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
      const ctx = requireCtx(request);
      const engine = await builtinEngine(deps, ctx.tenantId);
      const account = unwrapBilling(await engine.getAccount(request.params.accountId), 'Billing account');
      const invoice = unwrapBilling(
        await engine.createInvoice({
          accountId: account.id,
          currency: account.currency,
          lines: request.body.lines.map((l) => ({
            description: l.description,
            quantity: l.quantity ?? 1,
            unitAmountCents: l.unitAmountCents,
          })),
          ...(request.body.dueDate ? { dueDate: request.body.dueDate } : {}),
          idempotencyKey: operationKey(request, 'admin-invoice'),
        }),
        'Billing account',
      );
      return runMutation(deps, request, reply, async (m) => {
        await m.audit({ action: 'billing_invoice.create', resourceType: 'invoice', resourceId: invoice.id });
        await m.emit('invoice.created', {
          resourceType: 'invoice',
          resourceId: invoice.id,
          invoice: presentInvoice(invoice),
        });
        return { status: 201, body: envelope(m.ctx, presentInvoice(invoice), invoiceActions(invoice)) };
      });
    },
  );

  for (const [verb, status, action_] of [
    ['void', 'void', 'billing_invoice.void'],
    ['mark-uncollectible', 'uncollectible', 'billing_invoice.mark_uncollectible'],
  ] as const) {
    app.post(
      `${BUILTIN}/invoices/:invoiceId/${verb}`,
      {
        config: admin,
        schema: {
          operationId: verb === 'void' ? 'voidBillingInvoice' : 'markBillingInvoiceUncollectible',
          summary: verb === 'void' ? 'Void an invoice' : 'Write off an invoice',
          description: `Moves an open built-in invoice to \`${status}\` (already \`${status}\`: returned unchanged); 409 when it is closed otherwise, 404 when unknown.`,
          tags,
          params: InvoiceIdParams,
          response: { 200: Envelope(InvoiceSchema, 'The invoice.'), ...errorResponses(404, 502) },
        },
      },
      async (request, reply) => {
        const ctx = requireCtx(request);
        const engine = await builtinEngine(deps, ctx.tenantId);
        const before = unwrapBilling(await engine.getInvoice(request.params.invoiceId), 'Invoice');
        const invoice = unwrapBilling(await engine.closeInvoice(before.id, status), 'Invoice');
        return runMutation(deps, request, reply, async (m) => {
          if (before.status !== invoice.status) {
            await m.audit({
              action: action_,
              resourceType: 'invoice',
              resourceId: invoice.id,
              details: { before: { status: before.status }, after: { status: invoice.status } },
            });
          }
          return { status: 200, body: envelope(m.ctx, presentInvoice(invoice), invoiceActions(invoice)) };
        });
      },
    );
  }

  app.post(
    `${BUILTIN}/accounts/:accountId/payment-methods`,
    {
      config: admin,
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
      const ctx = requireCtx(request);
      const engine = await builtinEngine(deps, ctx.tenantId);
      const b = request.body;
      const method = unwrapBilling(
        await engine.addPaymentMethod(
          request.params.accountId,
          {
            type: b.type ?? 'card',
            cardType: b.cardType ?? null,
            lastFour: b.lastFour ?? '0000',
            expirationMonth: b.expirationMonth ?? null,
            expirationYear: b.expirationYear ?? null,
          },
          operationKey(request, 'admin-payment-method'),
        ),
        'Billing account',
      );
      return runMutation(deps, request, reply, async (m) => {
        await m.audit({
          action: 'billing_payment_method.create',
          resourceType: 'billing_payment_method',
          resourceId: method.id,
        });
        return {
          status: 201,
          body: envelope(
            m.ctx,
            presentBillingPaymentMethod(method),
            accountActions(request.params.accountId),
          ),
        };
      });
    },
  );
}
