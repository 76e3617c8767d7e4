import type { DeclaredRoute } from '../../../../http/declared-route.js';
import { cancelCheckoutSessionRoute } from './cancel-checkout-session.js';
import { completeCheckoutSessionRoute } from './complete-checkout-session.js';
import { createCheckoutSessionRoute } from './create-checkout-session.js';
import { delegatePaymentRoute } from './delegate-payment.js';
import { getCheckoutSessionRoute } from './get-checkout-session.js';
import { updateCheckoutSessionRoute } from './update-checkout-session.js';
import { acpDiscoveryRoute } from './well-known-acp.js';

/** The ACP binding (2026-04-17): its checkout routes, delegate_payment and discovery document. */
export const acpRoutes: DeclaredRoute[] = [
  createCheckoutSessionRoute,
  getCheckoutSessionRoute,
  updateCheckoutSessionRoute,
  completeCheckoutSessionRoute,
  cancelCheckoutSessionRoute,
  delegatePaymentRoute,
  acpDiscoveryRoute,
];
