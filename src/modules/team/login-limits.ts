import { and, eq, gt, lt, lte, or } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../db/client.js';
import { consoleLoginFailures } from './tables.js';

/** Failed sign-ins allowed per account and per client address in the rolling window. */
export const LOGIN_LIMITS = { perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 } as const;

/** Seconds until a sign-in may be tried again, or 0 when the account and the address are under their limits. */
export async function loginRetryAfter(
  db: Queryable,
  email: string,
  address: string,
  now: Date,
): Promise<number> {
  const since = new Date(now.getTime() - LOGIN_LIMITS.windowMs);
  const checks = [
    [eq(consoleLoginFailures.email, email), LOGIN_LIMITS.perAccount],
    [eq(consoleLoginFailures.address, address), LOGIN_LIMITS.perAddress],
  ] as const;
  for (const [who, limit] of checks) {
    const rows = await db
      .select({ at: consoleLoginFailures.at })
      .from(consoleLoginFailures)
      .where(and(who, gt(consoleLoginFailures.at, since), lte(consoleLoginFailures.at, now)))
      .orderBy(consoleLoginFailures.at);
    if (rows.length < limit) continue;
    // Allowed again once enough of the counted failures have left the window.
    const freeing = rows[rows.length - limit];
    if (!freeing) continue;
    return Math.max(1, Math.ceil((freeing.at.getTime() + LOGIN_LIMITS.windowMs - now.getTime()) / 1000));
  }
  return 0;
}

/** Records a failed sign-in and drops the failures of this account or address the window has passed. */
export async function recordLoginFailure(
  db: Queryable,
  email: string,
  address: string,
  now: Date,
): Promise<void> {
  const since = new Date(now.getTime() - LOGIN_LIMITS.windowMs);
  await db
    .delete(consoleLoginFailures)
    .where(
      and(
        lt(consoleLoginFailures.at, since),
        or(eq(consoleLoginFailures.email, email), eq(consoleLoginFailures.address, address)),
      ),
    );
  await db.insert(consoleLoginFailures).values({ id: uuidv7(), email, address, at: now });
}
