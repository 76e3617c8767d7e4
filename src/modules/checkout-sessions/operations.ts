import { uuidv7 } from 'uuidv7';
import type { OperationContext } from '../../core/context.js';
import { AppError, validationFailed } from '../../core/errors.js';
import {
  type OperationKey,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { insertCartRow } from '../carts/index.js';
import { type Decided, decide, type SessionInputs } from './decide.js';
import type {
  CheckoutChange,
  CheckoutProtocol,
  CheckoutSession,
  DelegatedToken,
  DelegatePaymentInput,
} from './model.js';
import { storeDelegatedToken } from './payment.js';
import {
  inputsOf,
  openSession,
  presentCheckout,
  SESSION_TTL_MS,
  sessionRow,
  writeSession,
} from './service.js';
import type { CheckoutSessionRow } from './tables.js';

// The checkout session's operations, whichever protocol calls them: each is one unit of work
// that locks the session, decides it again from its inputs and writes what it decided.

export interface CreateCheckoutInput {
  protocol: CheckoutProtocol;
  /** Default USD. */
  currency?: string | undefined;
  change: CheckoutChange;
  platform?: { webhookUrl?: string | null; profileUrl?: string | null };
}

const decidedColumns = (d: Decided) => ({
  status: d.status,
  lines: d.lines,
  fulfillmentOptions: d.fulfillmentOptions,
  selectedFulfillmentOptionId: d.selectedFulfillmentOptionId,
  appliedDiscounts: d.appliedDiscounts,
  rejectedDiscounts: d.rejectedDiscounts,
  totals: d.totals,
  totalCents: d.totals.total,
  messages: d.messages,
  continueUrl: null,
});

/** The inputs after a change: absent fields stay (or, replacing, are cleared); null clears. */
function changed(before: SessionInputs, change: CheckoutChange, replace: boolean): SessionInputs {
  const pick = <K extends keyof SessionInputs>(key: K, empty: SessionInputs[K]): SessionInputs[K] => {
    const value = change[key as keyof CheckoutChange] as SessionInputs[K] | undefined;
    if (value !== undefined) return value;
    return replace ? empty : before[key];
  };
  return {
    items: pick('items', []),
    buyer: pick('buyer', null),
    address: pick('address', null),
    selectedFulfillmentOptionId: pick('selectedFulfillmentOptionId', null),
    discountCodes: pick('discountCodes', []),
  };
}

const EMPTY: SessionInputs = {
  items: [],
  buyer: null,
  address: null,
  selectedFulfillmentOptionId: null,
  discountCodes: [],
};

/** 201: a new session, priced, with its messages. Unknown products and zero quantities are messages. */
export function createCheckout(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: CreateCheckoutInput,
  key: OperationKey<CheckoutSession>,
): Promise<CheckoutSession> {
  const currency = (input.currency ?? 'USD').toUpperCase();
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const cart = await insertCartRow(u.tx, ctx.tenantId, { currency }, u.now);
    const inputs = changed(EMPTY, input.change, false);
    const id = uuidv7();
    const decided = await decide(
      u.tx,
      ctx.tenantId,
      { cartId: cart.id, currency, created: cart },
      inputs,
      u.now,
    );
    const row: CheckoutSessionRow = {
      tenantId: ctx.tenantId,
      id,
      protocol: input.protocol,
      currency,
      cartId: cart.id,
      ...inputs,
      ...decidedColumns(decided),
      orderId: null,
      paymentSessionId: null,
      platformWebhookUrl: input.platform?.webhookUrl ?? null,
      platformProfileUrl: input.platform?.profileUrl ?? null,
      version: 1,
      expiresAt: new Date(u.now.getTime() + SESSION_TTL_MS),
      createdAt: u.now,
      updatedAt: u.now,
    };
    await writeSession(u.tx, row);
    await u.audit({ action: 'checkout_session.create', resourceType: 'checkout_session', resourceId: id });
    return presentCheckout(row, u.now);
  });
}

/** Writes the session's new columns (its version moves on) and returns it presented. */
export async function saveSession(
  u: UnitOfWork,
  row: CheckoutSessionRow,
  patch: Partial<CheckoutSessionRow>,
) {
  const after: CheckoutSessionRow = { ...row, ...patch, version: row.version + 1, updatedAt: u.now };
  await writeSession(u.tx, after);
  return after;
}

/**
 * Applies a change (absent fields unchanged; with `replace`, absent fields cleared: UCP PUT).
 * 404 not_found; 409 checkout_session_closed once completed, canceled or expired.
 */
export function updateCheckout(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { id: string; change: CheckoutChange; replace?: boolean },
  key: OperationKey<CheckoutSession>,
): Promise<CheckoutSession> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const row = await openSession(u.tx, ctx.tenantId, input.id, u.now);
    const inputs = changed(inputsOf(row), input.change, input.replace ?? false);
    const decided = await decide(u.tx, ctx.tenantId, row, inputs, u.now);
    const after = await saveSession(u, row, { ...inputs, ...decidedColumns(decided) });
    await u.audit({
      action: 'checkout_session.update',
      resourceType: 'checkout_session',
      resourceId: row.id,
    });
    return presentCheckout(after, u.now);
  });
}

/** The session (404 not_found for another tenant's id or an unknown one). */
export async function getCheckout(
  deps: ServiceDeps,
  ctx: OperationContext,
  id: string,
): Promise<CheckoutSession> {
  return presentCheckout(await sessionRow(deps.db, ctx.tenantId, id), deps.clock.now());
}

/** Cancels an open session; 409 checkout_session_closed once completed or canceled (ACP answers 405). */
export function cancelCheckout(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { id: string },
  key: OperationKey<CheckoutSession>,
): Promise<CheckoutSession> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const row = await openSession(u.tx, ctx.tenantId, input.id, u.now);
    const after = await saveSession(u, row, {
      status: 'canceled',
      continueUrl: null,
      messages: [{ type: 'info', code: 'invalid', content: 'The checkout session was canceled' }],
    });
    await u.audit({
      action: 'checkout_session.cancel',
      resourceType: 'checkout_session',
      resourceId: row.id,
    });
    return presentCheckout(after, u.now);
  });
}

/**
 * ACP delegate_payment: a one-use token (its `id`, shown once) bound to its allowance: at most
 * `maxAmount` of `currency`, for one open session of this tenant, until `expiresAt`.
 */
export async function delegatePayment(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: DelegatePaymentInput,
  key: OperationKey<DelegatedToken>,
): Promise<DelegatedToken> {
  const now = deps.clock.now();
  const expiresAt = new Date(input.allowance.expiresAt);
  if (Number.isNaN(expiresAt.getTime()) || expiresAt <= now)
    throw validationFailed('allowance.expires_at', 'future', 'allowance.expires_at must be in the future');
  const digits = input.card.number.replace(/\D/g, '');
  if (digits.length < 12 || digits.length > 19)
    throw validationFailed('payment_method.number', 'format', 'payment_method.number must be 12-19 digits');
  const session = await sessionRow(deps.db, ctx.tenantId, input.allowance.checkoutSessionId).catch(
    () => null,
  );
  if (!session)
    throw validationFailed(
      'allowance.checkout_session_id',
      'exists',
      'allowance.checkout_session_id is not a checkout session of this merchant',
    );
  return runUnitOfWork(deps, ctx, key, (u) => storeDelegatedToken(u, deps.keyRing, input));
}

/** 409 checkout_not_ready, naming the first thing missing. */
export const checkoutNotReady = (session: CheckoutSession) => {
  const first = session.messages.find((m) => m.type === 'error');
  return new AppError(
    'checkout_not_ready',
    `The checkout session is not ready to complete${first ? `: ${first.content}` : ''}`,
  );
};
