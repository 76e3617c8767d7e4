import { tagOperations } from '../../unit-of-work/tags.js';
import type { PaymentSessionRow } from './service.js';
import { paymentSessions } from './tables.js';

/**
 * PUT/DELETE /payments/{id}/tags/{key}, in any status (a tag changes no money): audit
 * `payment.tag_set`/`payment.tag_delete` on the `payment_session`, no event.
 */
export const paymentSessionTags = tagOperations<PaymentSessionRow>({
  table: paymentSessions,
  label: 'Payment session',
  resourceType: 'payment_session',
  audit: { set: 'payment.tag_set', delete: 'payment.tag_delete' },
});
