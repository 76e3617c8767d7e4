/**
 * Entitlements of a subscription (SPEC section 6): the base product's features merged with those
 * of its live add-ons. A feature value is `true`/`false`, a number (a limit) or `null` (unlimited).
 */

export type EntitlementValue = boolean | number | null;
export type Entitlements = Record<string, EntitlementValue>;

/**
 * One feature granted by two products: `null` (unlimited) wins; two limits add up; two
 * booleans are granted if either grants; a limit and a boolean keep the limit.
 */
export function mergeValue(a: EntitlementValue | undefined, b: EntitlementValue): EntitlementValue {
  if (a === undefined) return b;
  if (a === null || b === null) return null;
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a || b;
  return typeof a === 'number' ? a : b;
}

export function mergeEntitlements(sets: readonly Entitlements[]): Entitlements {
  const out: Entitlements = {};
  for (const set of sets) {
    for (const [feature, value] of Object.entries(set)) out[feature] = mergeValue(out[feature], value);
  }
  return out;
}

export interface ResolvedEntitlements {
  entitlements: Entitlements;
  resolvedFrom: { productId: string; productName: string };
}

/** The `data` of every subscription event (SPEC section 6); `userId` is absent for journey purchases. */
export interface SubscriptionEventData {
  resourceType: 'subscription';
  resourceId: string;
  status: string;
  /** Absent when the entitlement set could not be resolved (unknown, not empty). */
  subscription?: ResolvedEntitlements;
  userId?: string;
}

export function subscriptionEventData(
  subscription: { id: string; status: string },
  resolved: ResolvedEntitlements | null,
  userId: string | null,
): SubscriptionEventData {
  return {
    resourceType: 'subscription',
    resourceId: subscription.id,
    status: subscription.status,
    ...(resolved ? { subscription: resolved } : {}),
    ...(userId ? { userId } : {}),
  };
}
