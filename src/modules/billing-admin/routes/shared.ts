import {
  type Invoice,
  presentBillingAccount,
  presentBillingPaymentMethod,
  presentInvoice,
} from '../../../billing/index.js';
import { AppError, validationFailed } from '../../../core/errors.js';
import type { RequestContext } from '../../../http/context.js';
import type { Deps } from '../../../http/deps.js';
import { type ActionSpec, envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import { compileBodyValidator, validationDetails } from '../../../http/validation.js';
import type { OperatorResult } from '../operations.js';

/** The adapter's config, validated against its JSON Schema: 400 naming `config.<field>`. */
export function validConfig(deps: Deps, adapter: string, raw: unknown) {
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

export const available = (deps: Deps) =>
  deps.billing.names().map((name) => {
    const f = deps.billing.factory(name);
    return {
      name,
      description: f?.description ?? '',
      configSchema: (f?.configSchema ?? {}) as Record<string, unknown>,
    };
  });

export const integrationActions = [
  next('self', 'getBillingIntegration'),
  next('update', 'putBillingIntegration'),
  next('delete', 'deleteBillingIntegration'),
];

export const tags = ['Billing admin'];
export const accountActions = (id: string) => [
  next('account', 'getAccount', { id }),
  next('invoices', 'listAccountInvoices', { id }),
  next('issueInvoice', 'issueBillingInvoice', { accountId: id }),
];
export const accountResponse = (r: OperatorResult, ctx: RequestContext): Presented => {
  const account = (r as Extract<OperatorResult, { action: 'open_account' }>).account;
  return { status: 201, body: envelope(ctx, presentBillingAccount(account), accountActions(account.id)) };
};
export const invoiceResponse =
  (status: number) =>
  (r: OperatorResult, ctx: RequestContext): Presented => {
    const invoice = (r as Extract<OperatorResult, { invoice: Invoice }>).invoice;
    return { status, body: envelope(ctx, presentInvoice(invoice), invoiceActions(invoice)) };
  };
export const paymentMethodResponse = (r: OperatorResult, ctx: RequestContext): Presented => {
  const made = r as Extract<OperatorResult, { action: 'add_payment_method' }>;
  return {
    status: 201,
    body: envelope(ctx, presentBillingPaymentMethod(made.method), accountActions(made.accountId)),
  };
};
export const invoiceActions = (invoice: Invoice): ActionSpec[] => [
  next('accountInvoices', 'listAccountInvoices', { id: invoice.accountId }),
  ...(invoice.status === 'open'
    ? [
        next('pay', 'payInvoice', { id: invoice.id }),
        next('void', 'voidBillingInvoice', { invoiceId: invoice.id }),
      ]
    : []),
];
