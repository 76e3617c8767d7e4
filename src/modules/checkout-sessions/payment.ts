import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { AppError } from '../../core/errors.js';
import type { KeyRing } from '../../core/key-ring.js';
import type { Queryable } from '../../db/client.js';
import { readTogether, rowByIdRead } from '../../db/read-together.js';
import { rowUpsert } from '../../db/row-statements.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { UnitOfWork } from '../../unit-of-work/index.js';
import {
  type CheckoutPayment,
  type CheckoutProtocol,
  type DelegatedToken,
  type DelegatePaymentInput,
  PAYMENT_HANDLERS,
} from './model.js';
import { type DelegatedTokenRow, delegatedPaymentTokens } from './tables.js';

// The payment handlers a session offers. ACP's takes a token an agent platform delegated (bound to
// an allowance, spent once, in the order's unit of work); UCP's sandbox card answers by token.
// Neither keeps anything card-like in clear: a token's hash, a card's keyed fingerprint and last four.

export const HANDLERS_BY_PROTOCOL: Record<CheckoutProtocol, readonly string[]> = {
  acp: [PAYMENT_HANDLERS.acpDelegatedCard],
  ucp: [PAYMENT_HANDLERS.sandboxCard],
};

export const SANDBOX_TOKENS = {
  success: 'success_token',
  decline: 'fail_token',
  escalate: 'escalate_token',
} as const;

/** What a handler decided, before any write. */
export type PaymentDecision =
  | { kind: 'authorized'; reference: string; tokenRow: DelegatedTokenRow | null }
  | { kind: 'declined'; reason: string }
  | { kind: 'escalate' };

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

// Statement text built once: a token is written and read on every ACP checkout.
const writeToken = rowUpsert(delegatedPaymentTokens);
const tokenByHash = rowByIdRead(delegatedPaymentTokens, 'tokenHash');

const invalidToken = (message: string, field = 'payment.token') =>
  new AppError('payment_token_invalid', message, [{ field, rule: 'token', message }]);

/** Keeps the allowance and a fingerprint; hands the token back once. */
export async function storeDelegatedToken(
  u: UnitOfWork,
  keyRing: KeyRing,
  input: DelegatePaymentInput,
): Promise<DelegatedToken> {
  const token = `vt_${randomBytes(24).toString('base64url')}`;
  const digits = input.card.number.replace(/\D/g, '');
  const row = {
    tenantId: u.ctx.tenantId,
    id: uuidv7(),
    tokenHash: tokenHash(token),
    cardLast4: digits.slice(-4),
    cardBrand: input.card.brand ?? null,
    cardFingerprint: keyRing.mac('card_fingerprint', digits),
    maxAmountCents: input.allowance.maxAmount,
    currency: input.allowance.currency.toUpperCase(),
    checkoutSessionId: input.allowance.checkoutSessionId,
    merchantId: input.allowance.merchantId,
    expiresAt: new Date(input.allowance.expiresAt),
    metadata: input.metadata ?? {},
    usedAt: null,
    usedForOrderId: null,
    createdAt: u.now,
  };
  await writeToken(u.tx, row);
  await u.audit({
    action: 'payment_token.create',
    resourceType: 'payment_token',
    resourceId: row.id,
    details: {
      checkoutSessionId: row.checkoutSessionId,
      last4: row.cardLast4,
      maxAmountCents: row.maxAmountCents,
    },
  });
  return { id: token, createdAt: u.now.toISOString(), metadata: row.metadata };
}

/** The delegated token as it stands, or why it cannot pay this session now. */
async function usableToken(
  q: Queryable,
  tenantId: string,
  token: string,
  session: { id: string; currency: string; total: number },
  now: Date,
): Promise<DelegatedTokenRow> {
  const [row] = await readTogether(q, [tokenByHash(tenantId, tokenHash(token))]);
  if (!row) throw invalidToken('The payment token is unknown');
  if (row.usedAt) throw invalidToken('The payment token was already used');
  if (now >= row.expiresAt) throw invalidToken(`The payment token expired at ${row.expiresAt.toISOString()}`);
  if (row.checkoutSessionId !== session.id)
    throw invalidToken('The payment token is for another checkout session');
  if (row.currency !== session.currency)
    throw invalidToken(`The payment token allows ${row.currency}; the session is in ${session.currency}`);
  if (row.maxAmountCents < session.total)
    throw invalidToken(
      `The payment token allows at most ${row.maxAmountCents}; the session's total is ${session.total}`,
    );
  return row;
}

/** Decides the payment (no write): a handler the session does not offer never completes it. */
export async function decidePayment(
  q: Queryable,
  tenantId: string,
  protocol: CheckoutProtocol,
  payment: CheckoutPayment,
  session: { id: string; currency: string; total: number },
  now: Date,
): Promise<PaymentDecision> {
  if (!HANDLERS_BY_PROTOCOL[protocol].includes(payment.handlerId))
    throw invalidToken(
      `Payment handler ${payment.handlerId} is not offered by this session (offered: ${HANDLERS_BY_PROTOCOL[protocol].join(', ')})`,
      'payment.handlerId',
    );
  if (payment.handlerId === PAYMENT_HANDLERS.acpDelegatedCard) {
    const row = await usableToken(q, tenantId, payment.token, session, now);
    return { kind: 'authorized', reference: `delegated:${row.id}`, tokenRow: row };
  }
  switch (payment.token) {
    case SANDBOX_TOKENS.success:
      return { kind: 'authorized', reference: `sandbox:${uuidv7()}`, tokenRow: null };
    case SANDBOX_TOKENS.decline:
      return { kind: 'declined', reason: 'The card was declined (sandbox fail_token)' };
    case SANDBOX_TOKENS.escalate:
      return { kind: 'escalate' };
    default:
      throw invalidToken('The sandbox card handler takes success_token, fail_token or escalate_token');
  }
}

/** In the order's unit of work: the token spent, once (a racing completion finds it used). */
export async function spendToken(u: UnitOfWork, row: DelegatedTokenRow, orderId: string) {
  const spent = await u.tx
    .update(delegatedPaymentTokens)
    .set({ usedAt: u.now, usedForOrderId: orderId })
    .where(
      and(
        tenantWhere(delegatedPaymentTokens, u.ctx.tenantId, eq(delegatedPaymentTokens.id, row.id)),
        isNull(delegatedPaymentTokens.usedAt),
      ),
    )
    .returning({ id: delegatedPaymentTokens.id });
  if (spent.length === 0) throw invalidToken('The payment token was already used');
}
