import { next } from '../../../core/actions.js';
import { AppError, notFound } from '../../../core/errors.js';
import { resolveAccount } from '../../accounts/index.js';
import { type AccountEntitlements, type EntitlementValue, readAccountEntitlements } from './grants.js';

/** How many accounts a process remembers (which exist, and which products their set named). */
const REMEMBERED = 10_000;

type AccountDeps = Parameters<typeof resolveAccount>[0];

/**
 * Reads an account's entitlement set for the routes, from committed rows on every call, so an
 * answer is never stale on any instance. What it remembers per process cannot make it wrong:
 * that an account exists (organizations are never deleted), and the products its set named last
 * time (read in the same round trip as the subscriptions; others are read after). Warm, one call
 * is one round trip.
 */
export class EntitlementReader {
  private readonly known = new Map<string, string[]>();

  constructor(private readonly deps: AccountDeps) {}

  async read(tenantId: string, accountId: string): Promise<AccountEntitlements> {
    const key = `${tenantId}:${accountId}`;
    const likely = this.known.get(key);
    if (likely === undefined) {
      const account = await resolveAccount(this.deps, tenantId, accountId);
      if (account?.source !== 'local') throw notFound('Account');
    }
    const { resolution, productIds } = await readAccountEntitlements(
      this.deps.db,
      tenantId,
      accountId,
      likely,
    );
    this.remember(key, productIds);
    if (resolution.ok) return resolution.value;
    throw new AppError(
      'conflict',
      `The entitlements of this account cannot be resolved: subscription ${resolution.subscriptionId} names ` +
        `product ${resolution.productId}, and ${resolution.reason}. The set is unknown (not empty); restore the ` +
        'product or change the subscription’s plan.',
      undefined,
      undefined,
      [next('subscription', 'getSubscription', { id: resolution.subscriptionId })],
    );
  }

  private remember(key: string, productIds: string[]) {
    this.known.delete(key);
    this.known.set(key, productIds);
    if (this.known.size > REMEMBERED) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
  }
}

/** One feature of a resolved set: granted or not, its limit, and which subscriptions give it. */
export function checkFeature(set: AccountEntitlements, feature: string) {
  const value: EntitlementValue | undefined = Object.hasOwn(set.entitlements, feature)
    ? set.entitlements[feature]
    : undefined;
  return {
    allowed: value === true || value === null || (typeof value === 'number' && value > 0),
    limit: typeof value === 'number' ? value : null,
    grantedBy: set.resolvedFrom.flatMap((c) =>
      Object.hasOwn(c.entitlements, feature)
        ? [
            {
              subscriptionId: c.subscriptionId,
              productId: c.productId,
              productName: c.productName,
              value: c.entitlements[feature] as EntitlementValue,
            },
          ]
        : [],
    ),
  };
}
