import { type Static, Type } from 'typebox';
import { toDecimal } from '../core/money.js';
import { StringEnum } from '../core/schema.js';
import type { BillingAccount, BillingPaymentMethod, BillingSubscription, Invoice } from './adapter.js';

// API shapes of what the billing adapter returns (SPEC.md section 2, Invoice and account detail).

const Contact = Type.Object({
  name: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  phone: Type.Union([Type.String(), Type.Null()]),
});

export const BillingAccountSchema = Type.Object(
  {
    id: Type.String({ description: 'The billing system’s account id.' }),
    source: Type.Literal('billing', {
      description: 'Resolved through the billing adapter, not a local account.',
    }),
    accountNumber: Type.String(),
    name: Type.String(),
    currency: Type.String(),
    balance: Type.Number({ description: 'Open balance as a decimal in major units.' }),
    balanceCents: Type.Integer({ description: 'Open balance in minor units.' }),
    contacts: Type.Array(Contact),
  },
  { description: 'An account as the billing system knows it.' },
);

export const InvoiceSchema = Type.Object({
  id: Type.String({ description: 'The billing system’s invoice id.' }),
  accountId: Type.String(),
  invoiceNumber: Type.String(),
  invoiceDate: Type.String({ format: 'date' }),
  dueDate: Type.String({ format: 'date' }),
  amount: Type.Number({ description: 'Decimal in major units of `currency` (e.g. 19.99).' }),
  balance: Type.Number({ description: 'Still to pay, decimal in major units.' }),
  amountCents: Type.Integer({ description: '`amount` in minor units (additive; use it for arithmetic).' }),
  balanceCents: Type.Integer(),
  currency: Type.String(),
  status: StringEnum(['open', 'paid', 'void', 'uncollectible']),
  hostedInvoiceUrl: Type.Union([Type.String(), Type.Null()], {
    description: 'The billing system’s page for the invoice, when it has one.',
  }),
  subscriptionId: Type.Union([Type.String(), Type.Null()], {
    description:
      'The billing subscription the invoice bills (a period, a plan change, an add-on’s first period); null for ' +
      'an order’s or a one-off invoice. Local subscriptions carry it as `billingSubscriptionId`.',
  }),
  lines: Type.Array(
    Type.Object({
      description: Type.String(),
      quantity: Type.Integer(),
      unitAmountCents: Type.Integer(),
      amountCents: Type.Integer(),
    }),
  ),
});

export const BillingSubscriptionSchema = Type.Object({
  id: Type.String(),
  status: Type.String({ description: '`active`, `pending_cancellation` or `cancelled`.' }),
  priceCents: Type.Integer(),
  currency: Type.String(),
  billingInterval: Type.String(),
  productId: Type.String(),
  productName: Type.String(),
  quantity: Type.Integer(),
  currentPeriodStart: Type.String({ format: 'date-time' }),
  currentPeriodEnd: Type.String({ format: 'date-time' }),
});

export const BillingPaymentMethodSchema = Type.Object({
  id: Type.String(),
  type: Type.String(),
  cardType: Type.Union([Type.String(), Type.Null()]),
  lastFour: Type.String(),
  expirationMonth: Type.Union([Type.Integer(), Type.Null()]),
  expirationYear: Type.Union([Type.Integer(), Type.Null()]),
  isDefault: Type.Boolean(),
  source: StringEnum(['billing', 'local'], { description: 'From the billing system, or a local reference.' }),
});

export const presentBillingAccount = (a: BillingAccount): Static<typeof BillingAccountSchema> => ({
  id: a.id,
  source: 'billing',
  accountNumber: a.accountNumber,
  name: a.name,
  currency: a.currency,
  balance: toDecimal(a.balanceCents, a.currency),
  balanceCents: a.balanceCents,
  contacts: a.contacts,
});

export const presentInvoice = (i: Invoice): Static<typeof InvoiceSchema> => ({
  id: i.id,
  accountId: i.accountId,
  invoiceNumber: i.invoiceNumber,
  invoiceDate: i.invoiceDate,
  dueDate: i.dueDate,
  amount: toDecimal(i.amountCents, i.currency),
  balance: toDecimal(i.balanceCents, i.currency),
  amountCents: i.amountCents,
  balanceCents: i.balanceCents,
  currency: i.currency,
  status: i.status,
  hostedInvoiceUrl: i.hostedInvoiceUrl,
  subscriptionId: i.subscriptionId,
  lines: i.lines,
});

export const presentBillingSubscription = (
  s: BillingSubscription,
): Static<typeof BillingSubscriptionSchema> => ({
  id: s.id,
  status: s.status,
  priceCents: s.priceCents,
  currency: s.currency,
  billingInterval: s.billingInterval,
  productId: s.productId,
  productName: s.productName,
  quantity: s.quantity,
  currentPeriodStart: s.currentPeriodStart,
  currentPeriodEnd: s.currentPeriodEnd,
});

export const presentBillingPaymentMethod = (
  m: BillingPaymentMethod,
): Static<typeof BillingPaymentMethodSchema> => ({ ...m, source: 'billing' });
