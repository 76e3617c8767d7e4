import { Type } from 'typebox';
import { StringEnum } from '../../core/schema.js';
import type { Deps } from '../../http/deps.js';
import type { TypedApp } from '../../http/types.js';
import { pendingIntentStats } from '../../unit-of-work/index.js';

const PING_TIMEOUT_MS = 2_000;

async function pingWithin(deps: Deps, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([deps.database.ping().then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

const HealthSchema = Type.Object({ status: Type.String() });
const ReadySchema = Type.Object({
  status: StringEnum(['ready', 'degraded', 'unavailable']),
  checks: Type.Object({
    database: StringEnum(['ok', 'unreachable']),
    rateLimiter: StringEnum(['ok', 'degraded'], {
      description: '`degraded`: Redis is unreachable and each instance limits on its own.',
    }),
  }),
  /**
   * Operations with billing calls not yet closed (every tenant): a few in flight is normal; an old
   * one means the reconciler cannot finish it (see GET /api/v1/admin/intents?status=pending).
   */
  intents: Type.Optional(
    Type.Object({
      pending: Type.Integer(),
      oldestAgeSeconds: Type.Union([Type.Integer(), Type.Null()]),
    }),
  ),
});

/** Liveness and readiness probes for orchestrators; internal, no auth. */
export function registerHealthRoutes(app: TypedApp, deps: Deps) {
  app.get(
    '/healthz',
    { config: { public: false, rateLimit: false }, schema: { response: { 200: HealthSchema } } },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      config: { public: false, rateLimit: false },
      schema: { response: { 200: ReadySchema, 503: ReadySchema } },
    },
    async (_request, reply) => {
      const ok = await pingWithin(deps, PING_TIMEOUT_MS);
      const rateLimiter = await deps.rateLimiter.health();
      if (!ok) reply.code(503).header('Retry-After', '5');
      // A degraded rate limiter still serves (fail open), so the instance stays in rotation.
      const status = !ok ? 'unavailable' : rateLimiter === 'ok' ? 'ready' : 'degraded';
      const intents = ok
        ? await pendingIntentStats(deps.db, deps.clock.now()).catch(() => undefined)
        : undefined;
      return {
        status,
        checks: { database: ok ? 'ok' : 'unreachable', rateLimiter },
        ...(intents ? { intents } : {}),
      } as const;
    },
  );
}
