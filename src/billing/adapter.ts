/**
 * The billing-adapter boundary: what the service needs from a billing system (accounts,
 * invoices, subscriptions, payment methods, settlement, live quotes). Implement this interface to
 * connect another billing system; no vendor type may cross it.
 *
 * Conventions every implementation follows:
 * - Amounts are integers in minor units of `currency` (ISO 4217). The HTTP layer renders invoice
 *   `amount`/`balance` as decimals; adapters never use floating point for money.
 * - Expected failures (an unknown id, an invalid request, a state conflict) are returned as
 *   `{ ok: false, failure }`. Only an outage (network, timeout, 5xx of the vendor) is thrown, as
 *   `BillingUnavailableError`; the HTTP layer answers it with `502 billing_unavailable`.
 * - Every call that changes something takes an `idempotencyKey`, derived from our operation (see
 *   src/unit-of-work/intents.ts). Repeating a call with the same key must not change anything
 *   again and must return the same result, so "the adapter succeeded, our commit failed, the
 *   client retried" never invoices or settles twice; `findOperation` tells what a key did, so an
 *   operation left open by a crash can be completed or undone.
 * - An adapter instance is bound to one tenant's integration (see BillingAdapterFactory).
 */

export type BillingFailureKind = 'not_found' | 'invalid' | 'conflict';

export interface BillingFailure {
  kind: BillingFailureKind;
  message: string;
  /** The input field at fault, for `invalid`. */
  field?: string;
}

export type BillingResult<T> = { ok: true; value: T } | { ok: false; failure: BillingFailure };

export const ok = <T>(value: T): BillingResult<T> => ({ ok: true, value });
export const fail = <T = never>(
  kind: BillingFailureKind,
  message: string,
  field?: string,
): BillingResult<T> => ({
  ok: false,
  failure: { kind, message, ...(field ? { field } : {}) },
});

/**
 * The billing system cannot be reached or answered with an error of its own. `effect` says what
 * the failed call did: `none` when it certainly never reached the system (the connection was
 * refused, nothing was sent), so nothing needs reconciling; `unknown` otherwise (a timeout after
 * sending, a 5xx), which leaves the operation's intent open for a retry or the reconciler.
 */
export class BillingUnavailableError extends Error {
  readonly effect: 'none' | 'unknown';
  constructor(
    message: string,
    readonly adapter: string,
    options?: { cause?: unknown; effect?: 'none' | 'unknown' },
  ) {
    super(message, options);
    this.name = 'BillingUnavailableError';
    this.effect = options?.effect ?? 'unknown';
  }
}

export interface BillingContact {
  name: string | null;
  email: string | null;
  phone: string | null;
}

export interface BillingAccount {
  /** The billing system's account id (its own format: see `isAccountId`). */
  id: string;
  accountNumber: string;
  name: string;
  currency: string;
  /** Sum of the open invoices' balances, minor units. */
  balanceCents: number;
  contacts: BillingContact[];
}

export type InvoiceStatus = 'open' | 'paid' | 'void' | 'uncollectible';

export interface InvoiceLine {
  description: string;
  quantity: number;
  unitAmountCents: number;
  amountCents: number;
}

export interface Invoice {
  id: string;
  accountId: string;
  invoiceNumber: string;
  /** `YYYY-MM-DD`. */
  invoiceDate: string;
  dueDate: string;
  currency: string;
  amountCents: number;
  balanceCents: number;
  status: InvoiceStatus;
  /** A page where the customer can see and pay the invoice, when the system has one. */
  hostedInvoiceUrl: string | null;
  /** The billing subscription the invoice bills (a period, a change, an add-on), if any. */
  subscriptionId: string | null;
  lines: InvoiceLine[];
}

export type BillingSubscriptionStatus = 'active' | 'cancelled' | 'pending_cancellation';

export interface BillingSubscription {
  id: string;
  accountId: string;
  productId: string;
  productName: string;
  quantity: number;
  priceCents: number;
  currency: string;
  billingInterval: 'month' | 'year';
  status: BillingSubscriptionStatus;
  currentPeriodStart: string;
  currentPeriodEnd: string;
}

export interface BillingPaymentMethod {
  id: string;
  type: string;
  cardType: string | null;
  lastFour: string;
  expirationMonth: number | null;
  expirationYear: number | null;
  isDefault: boolean;
}

export interface InvoiceLineInput {
  description: string;
  quantity: number;
  unitAmountCents: number;
}

export interface CreateInvoiceInput {
  accountId: string;
  currency: string;
  lines: InvoiceLineInput[];
  /** `YYYY-MM-DD`; default: 30 days after the invoice date. */
  dueDate?: string;
  /** The billing subscription the invoice bills, if any (an add-on's first, prorated period). */
  subscriptionId?: string;
  idempotencyKey: string;
}

export interface PaymentReversalInput {
  /** The `paymentReference` of the settlement to reverse (our payment session id). */
  paymentReference: string;
  idempotencyKey: string;
}

export interface RefundInput {
  /** The `paymentReference` of the settlement to refund from (our payment session id). */
  paymentReference: string;
  amountCents: number;
  currency: string;
  /** One of the documented refund reasons (`requested_by_customer`, `duplicate`...). */
  reason: string;
  idempotencyKey: string;
}

export interface CreditApplicationInput {
  amountCents: number;
  currency: string;
  /** Our reference for the credit (the ledger entry id). */
  creditReference: string;
  idempotencyKey: string;
}

export interface SettlementInput {
  amountCents: number;
  currency: string;
  /** Our reference for the payment (the payment session id). */
  paymentReference: string;
  idempotencyKey: string;
}

export interface ProvisionSubscriptionInput {
  accountId: string;
  productId: string;
  productName: string;
  quantity: number;
  priceCents: number;
  currency: string;
  billingInterval: 'month' | 'year';
  currentPeriodStart: string;
  currentPeriodEnd: string;
  /** Invoice the first period now. */
  invoiceFirstPeriod: boolean;
  idempotencyKey: string;
}

export interface ChangeSubscriptionInput {
  subscriptionId: string;
  productId?: string;
  productName?: string;
  quantity?: number;
  priceCents?: number;
  /** Net amount to invoice now (prorated charge), minor units; 0 or absent for none. */
  chargeCents?: number;
  /** Amount to credit (recorded as a credit line on the next invoice), minor units. */
  creditCents?: number;
  idempotencyKey: string;
}

export interface CancelSubscriptionInput {
  subscriptionId: string;
  /** `immediate` ends it now; `end_of_period` marks it to end at the current period's end. */
  timing: 'immediate' | 'end_of_period';
  idempotencyKey: string;
}

export interface RenewSubscriptionInput {
  subscriptionId: string;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  /**
   * Whether to invoice the new period (default true). False: the period only moves, nothing is
   * invoiced (it was billed in advance with `createInvoice`), and any carried credit stays for the
   * next invoiced period; `SubscriptionChange.invoice` is then null.
   */
  invoice?: boolean;
  idempotencyKey: string;
}

export interface SubscriptionChange {
  subscription: BillingSubscription;
  /** The invoice the operation issued, if any. */
  invoice: Invoice | null;
}

/**
 * What a billing system did under one idempotency key: the result of the first call with that key
 * that took effect. Invoice calls (create, settle, reverse, void) record the invoice as it was
 * after the call; subscription calls (provision, change, cancel, renew) the subscription and any
 * invoice issued.
 */
export type RecordedOperation =
  | { kind: 'invoice'; invoice: Invoice }
  | { kind: 'subscription'; change: SubscriptionChange }
  /** A call outside this interface (the built-in engine's operator commands). */
  | { kind: 'other'; result: unknown };

export interface QuoteLineInput {
  productId: string;
  chargeId: string;
  chargeName: string;
  quantity: number;
  currency: string;
}

export interface Quote {
  lines: { productId: string; chargeId: string; amountCents: number }[];
  totalCents: number;
  currency: string;
}

export interface BillingAdapter {
  readonly name: string;
  /** Whether `id` has the form of this system's account ids (no I/O). */
  isAccountId(id: string): boolean;
  getAccount(accountId: string): Promise<BillingResult<BillingAccount>>;
  listInvoices(accountId: string): Promise<BillingResult<Invoice[]>>;
  getInvoice(invoiceId: string): Promise<BillingResult<Invoice>>;
  listSubscriptions(accountId: string): Promise<BillingResult<BillingSubscription[]>>;
  listPaymentMethods(accountId: string): Promise<BillingResult<BillingPaymentMethod[]>>;
  createInvoice(input: CreateInvoiceInput): Promise<BillingResult<Invoice>>;
  /** Applies a payment to an open invoice: a partial one lowers its balance, a full one pays it. */
  settleInvoice(invoiceId: string, payment: SettlementInput): Promise<BillingResult<Invoice>>;
  /**
   * Undoes a payment `settleInvoice` applied (named by its `paymentReference`): the balance grows
   * back by its amount and a paid invoice is open again. No such payment on the invoice: not_found.
   */
  reversePayment(invoiceId: string, input: PaymentReversalInput): Promise<BillingResult<Invoice>>;
  /**
   * Voids an open invoice that nothing has been paid on. Void already: the same invoice (ok).
   * Paid, partly paid or uncollectible: conflict.
   */
  voidInvoice(invoiceId: string, idempotencyKey: string): Promise<BillingResult<Invoice>>;
  /**
   * What the system did under `idempotencyKey`: the recorded result of the first call with that key
   * that took effect, or null when none did (a call refused with a failure value records nothing).
   * The reconciler asks this about operations left open between a call and our commit.
   */
  findOperation(idempotencyKey: string): Promise<BillingResult<RecordedOperation | null>>;
  provisionSubscription(input: ProvisionSubscriptionInput): Promise<BillingResult<SubscriptionChange>>;
  changeSubscription(input: ChangeSubscriptionInput): Promise<BillingResult<SubscriptionChange>>;
  cancelSubscription(input: CancelSubscriptionInput): Promise<BillingResult<SubscriptionChange>>;
  renewSubscription(input: RenewSubscriptionInput): Promise<BillingResult<SubscriptionChange>>;
  /**
   * OPTIONAL: prices passthrough charges live. Adapters without it make orders with passthrough
   * charges fail with `502 quote_unavailable`.
   */
  quoteCart?(lines: QuoteLineInput[]): Promise<BillingResult<Quote>>;
  /**
   * OPTIONAL capability `refunds`: records money given back on a payment `settleInvoice` applied
   * (a refund, or credit note, against the invoice). The invoice stays as it is (paid stays paid:
   * nothing is owed again), and the refunds of one payment never exceed it (over: invalid, on
   * `amountCents`). No such payment on the invoice: not_found. Recorded as an `invoice` operation.
   * Without it, refunds of sessions with an invoice answer `501 capability_unavailable`.
   */
  refundPayment?(invoiceId: string, input: RefundInput): Promise<BillingResult<Invoice>>;
  /**
   * OPTIONAL capability `credits`: applies account credit to an open invoice, lowering its balance
   * like a payment (a zero balance pays it). Not open: conflict; more than the balance: invalid, on
   * `amountCents`. Recorded as an `invoice` operation. Without it, applying credit answers
   * `501 capability_unavailable` (grants are still recorded in the ledger).
   */
  applyCredit?(invoiceId: string, input: CreditApplicationInput): Promise<BillingResult<Invoice>>;
}

/** The optional capabilities an adapter may offer, named as the manifest and 501 errors name them. */
export const BILLING_CAPABILITIES = {
  refunds: 'refundPayment',
  credits: 'applyCredit',
  passthroughQuotes: 'quoteCart',
} as const satisfies Record<string, keyof BillingAdapter>;

export type BillingCapability = keyof typeof BILLING_CAPABILITIES;

/** The capabilities `adapter` offers. */
export const capabilitiesOf = (adapter: BillingAdapter): BillingCapability[] =>
  (Object.keys(BILLING_CAPABILITIES) as BillingCapability[]).filter(
    (c) => typeof adapter[BILLING_CAPABILITIES[c]] === 'function',
  );

/** Builds a tenant's adapter from its integration config; one per adapter name. */
export interface BillingAdapterFactory {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the integration's `config` (validated on PUT /admin/billing-integration). */
  readonly configSchema: object;
  create(tenantId: string, config: Record<string, unknown>): BillingAdapter;
}
