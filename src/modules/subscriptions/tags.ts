import { tagOperations } from '../../unit-of-work/tags.js';
import type { SubscriptionRow } from './service.js';
import { subscriptions } from './tables.js';

/**
 * PUT/DELETE /subscriptions/{id}/tags/{key}: audit `subscription.tag_set`/`subscription.tag_delete`,
 * no event. A tag is not a change of the subscription's terms: `version` stays (previews stay valid).
 */
export const subscriptionTags = tagOperations<SubscriptionRow>({
  table: subscriptions,
  label: 'Subscription',
  resourceType: 'subscription',
  audit: { set: 'subscription.tag_set', delete: 'subscription.tag_delete' },
});
