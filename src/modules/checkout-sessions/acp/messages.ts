import type { CheckoutMessage, CheckoutSession, MessageTarget } from '../index.js';
import { jsonPath } from './json-path.js';

// The session's messages as ACP writes them (MessageInfo, MessageWarning, MessageError): the
// target becomes a JSONPath into the request the agent sends, codes map onto the protocol's enums.

export interface AcpMessage {
  type: 'info' | 'warning' | 'error';
  code?: string;
  param?: string;
  resolution?: 'recoverable' | 'requires_buyer_input' | 'requires_buyer_review';
  content_type: 'plain';
  content: string;
}

const ADDRESS_FIELDS = {
  country: 'country',
  postalCode: 'postal_code',
  line1: 'line_one',
  city: 'city',
} as const;

/** Where a message points, in the agent's request: `$.line_items[1].quantity`, `$.discounts.codes[0]`. */
export function paramOf(target: MessageTarget | undefined, session: CheckoutSession): string | undefined {
  if (!target) return undefined;
  switch (target.kind) {
    case 'item':
      return jsonPath('line_items', target.index, ...(target.field ? [target.field] : []));
    case 'address':
      return jsonPath(
        'fulfillment_details',
        'address',
        ...(target.field ? [ADDRESS_FIELDS[target.field]] : []),
      );
    case 'buyer':
      return jsonPath('buyer', ...(target.field ? [target.field] : []));
    case 'fulfillment':
      return jsonPath('selected_fulfillment_options');
    case 'discount': {
      const index = session.discountCodes.findIndex((c) => c.toUpperCase() === target.code.toUpperCase());
      return index < 0 ? jsonPath('discounts', 'codes') : jsonPath('discounts', 'codes', index);
    }
    case 'payment':
      return jsonPath('payment_data');
  }
}

/**
 * MessageError's codes: ours pass, except `requires_escalation` (an ACP session never escalates:
 * what a buyer must do elsewhere is an intervention the agent cannot run).
 */
const ERROR_CODES: Record<CheckoutMessage['code'], string> = {
  missing: 'missing',
  invalid: 'invalid',
  out_of_stock: 'out_of_stock',
  payment_declined: 'payment_declined',
  requires_escalation: 'intervention_required',
  discount_code_invalid: 'coupon_invalid',
};

/** MessageWarning's codes that ours name; another warning is told as info (which has no code). */
const WARNING_CODES: Partial<Record<CheckoutMessage['code'], string>> = {
  out_of_stock: 'low_stock',
  discount_code_invalid: 'discount_code_invalid',
};

/** The discount extension's reasons (DiscountErrorCode) for the model's rejections. */
const DISCOUNT_REASONS: Record<string, string> = {
  unknown: 'discount_code_invalid',
  inactive: 'discount_code_invalid',
  not_started: 'discount_code_invalid',
  currency_mismatch: 'discount_code_invalid',
  expired: 'discount_code_expired',
  exhausted: 'discount_code_usage_limit_reached',
  minimum_not_met: 'discount_code_minimum_not_met',
  already_applied: 'discount_code_already_applied',
  combination_disallowed: 'discount_code_combination_disallowed',
  not_combinable: 'discount_code_combination_disallowed',
};

export const discountReason = (reason: string) =>
  DISCOUNT_REASONS[reason] ?? (reason.startsWith('discount_code_') ? reason : 'discount_code_invalid');

const sameCode = (a: string, b: string) => a.toUpperCase() === b.toUpperCase();

/** Why a code was rejected, in the extension's words. */
function rejectionOf(session: CheckoutSession, code: string): string {
  const rejected = session.rejectedDiscounts.find((r) => sameCode(r.code, code));
  return discountReason(rejected?.reason ?? 'unknown');
}

/** A rejected discount code is a warning (the discount extension, section 7.2): the order can go on. */
function typeAndCode(message: CheckoutMessage, session: CheckoutSession): Pick<AcpMessage, 'type' | 'code'> {
  if (message.target?.kind === 'discount')
    return { type: 'warning', code: rejectionOf(session, message.target.code) };
  if (message.code === 'discount_code_invalid') return { type: 'warning', code: 'discount_code_invalid' };
  if (message.type === 'error') return { type: 'error', code: ERROR_CODES[message.code] };
  if (message.type === 'warning') {
    const code = WARNING_CODES[message.code];
    return code ? { type: 'warning', code } : { type: 'info' };
  }
  return { type: 'info' };
}

export function acpMessage(message: CheckoutMessage, session: CheckoutSession): AcpMessage {
  const param = paramOf(message.target, session);
  return {
    ...typeAndCode(message, session),
    ...(param ? { param } : {}),
    ...(message.resolution ? { resolution: message.resolution } : {}),
    content_type: 'plain',
    content: message.content,
  };
}

/** The codes the discount extension lists as rejected: why, and what the session said of each. */
export function rejectedDiscounts(session: CheckoutSession) {
  return session.rejectedDiscounts.map(({ code, reason }) => {
    const said = session.messages.find((m) => m.target?.kind === 'discount' && sameCode(m.target.code, code));
    return { code, reason: discountReason(reason), ...(said ? { message: said.content } : {}) };
  });
}
