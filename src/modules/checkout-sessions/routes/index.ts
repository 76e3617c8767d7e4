import type { DeclaredRoute } from '../../../http/declared-route.js';
import { continueCheckoutPageRoute } from './continue-checkout-page.js';
import { getCheckoutSessionRoute } from './get-checkout-session.js';
import { listCheckoutSessionsRoute } from './list-checkout-sessions.js';

/** The merchant's view of agentic checkout sessions; the protocols' routes are in acp/ and ucp/. */
export const checkoutSessionRoutes: DeclaredRoute[] = [
  listCheckoutSessionsRoute,
  getCheckoutSessionRoute,
  continueCheckoutPageRoute,
];
