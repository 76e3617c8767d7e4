import type { DeclaredRoute } from '../../../http/declared-route.js';
import { cancelSubscriptionRoute } from './cancel-subscription.js';
import { changeSubscriptionPlanRoute } from './change-subscription-plan.js';
import { changeSubscriptionQuantityRoute } from './change-subscription-quantity.js';
import { createSubscriptionRoute } from './create-subscription.js';
import { getSubscriptionRoute } from './get-subscription.js';
import { listSubscriptionsRoute } from './list-subscriptions.js';
import { renewSubscriptionRoute } from './renew-subscription.js';

export { subscriptionTagTarget } from './shared.js';

export const subscriptionRoutes: DeclaredRoute[] = [
  listSubscriptionsRoute,
  createSubscriptionRoute,
  getSubscriptionRoute,
  changeSubscriptionPlanRoute,
  changeSubscriptionQuantityRoute,
  cancelSubscriptionRoute,
  renewSubscriptionRoute,
];
