import type { Clock } from '../../clock.js';
import type { Permission } from '../../core/permissions.js';
import type { Db } from '../../db/client.js';
import { permissionsOf } from './roles.js';
import { liveSession, touchSession } from './service.js';

/** A session's idle clock is moved at most this often (one write a minute, not one a request). */
const TOUCH_EVERY_MS = 60_000;

/** A live session as the gate needs it (http's `ResolvedSession`). */
export interface LiveSession {
  sessionId: string;
  userId: string;
  tenantId: string;
  role: string;
  permissions: readonly Permission[];
}

/**
 * The gate's lookup of console sessions (http's `SessionResolver`, wired in src/deps.ts): by the
 * cookie token's hash, the user's role and status read each time, so a change applies at once.
 */
export class ConsoleSessionResolver {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async resolve(token: string): Promise<LiveSession | null> {
    const now = this.clock.now();
    const live = await liveSession(this.db, token, now);
    if (!live) return null;
    const { session, user } = live;
    if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS)
      await touchSession(this.db, session, now);
    return {
      sessionId: session.id,
      userId: user.id,
      tenantId: user.tenantId,
      role: user.role,
      permissions: permissionsOf(user.role),
    };
  }
}
