import type { Static } from 'typebox';
import { validationFailed } from '../../../core/errors.js';
import type { DelegatedToken, DelegatePaymentInput } from '../index.js';
import type { DelegatePaymentRequest } from './delegate-schemas.js';
import { addressOf } from './request-mapping.js';

// delegate_payment's request as the model's input, and its token as ACP answers it. The card
// number and CVC go to the model (which keeps a fingerprint and the last four) and nowhere else.

type Request = Static<typeof DelegatePaymentRequest>;

/**
 * The model's input; `merchantId` is the tenant: an allowance for another merchant (the
 * handler's `config.merchant_id` says which) is refused, naming `$.allowance.merchant_id`.
 */
export function delegateInput(body: Request, merchantId: string): DelegatePaymentInput {
  const card = body.payment_method;
  const { allowance } = body;
  if (allowance.merchant_id !== merchantId)
    throw validationFailed(
      'allowance.merchant_id',
      'merchant',
      'allowance.merchant_id must be the merchant_id of the session’s acp_delegated_card handler',
    );
  return {
    card: {
      number: card.number,
      ...(card.exp_month ? { expMonth: card.exp_month } : {}),
      ...(card.exp_year ? { expYear: card.exp_year } : {}),
      ...(card.name ? { name: card.name } : {}),
      ...(card.display_brand ? { brand: card.display_brand.toLowerCase() } : {}),
    },
    allowance: {
      reason: allowance.reason,
      maxAmount: allowance.max_amount,
      currency: allowance.currency.toUpperCase(),
      checkoutSessionId: allowance.checkout_session_id,
      merchantId: allowance.merchant_id,
      expiresAt: allowance.expires_at,
    },
    ...(body.billing_address ? { billingAddress: addressOf(body.billing_address) } : {}),
    metadata: body.metadata,
  };
}

/** The token, shown this once: its id, when it was made, and the correlation data echoed. */
export function presentToken(token: DelegatedToken, idempotencyKey: string | undefined) {
  return {
    id: token.id,
    created: token.createdAt,
    metadata: { ...token.metadata, ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {}) },
  };
}
