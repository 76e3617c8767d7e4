import pino, { type Logger } from 'pino';
import type { BillingAdapter } from './billing/adapter.js';
import { builtinFactory } from './billing/builtin/index.js';
import { BillingRegistry } from './billing/registry.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { loadKeyRing } from './core/key-ring.js';
import { type Database, openPglite, openPostgres } from './db/client.js';
import { deliverySignalFor } from './events/delivery-signal.js';
import type { Deps } from './http/deps.js';

export type { Deps } from './http/deps.js';

import { MemoryRateLimiter } from './http/rate-limit/memory-limiter.js';
import { RedisRateLimiter } from './http/rate-limit/redis-limiter.js';
import { ApiKeyResolver, redisRevocationBus } from './modules/api-keys/index.js';
import { resumeOperatorCommand } from './modules/billing-admin/index.js';
import { resumeApplication } from './modules/credits/index.js';
import {
  getOrder,
  moveOrderMoney,
  orderFollowsInvoice,
  orderOfInvoice,
  recordOrderUsage,
} from './modules/orders/index.js';
import { orderSessions, resumeRefund, resumeReversal, resumeSettlement } from './modules/payments/index.js';
import { resumeCancel, resumeChange, resumeEnd, resumeRenewal } from './modules/subscriptions/index.js';
import { fanOutFromEvents } from './modules/webhooks/index.js';
import type { IntentHandlers } from './unit-of-work/index.js';

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, redact: ['req.headers.authorization'] });
}

export async function openConfiguredDatabase(config: Config, logger: Logger): Promise<Database> {
  return config.databaseUrl
    ? openPostgres({
        url: config.databaseUrl,
        poolSize: config.dbPoolSize,
        waitMs: config.dbPoolWaitMs,
        logger,
      })
    : openPglite(config.dataDir);
}

/** How the reconciler finishes each roll-forward operation left pending, by operation name. */
const INTENT_HANDLERS: IntentHandlers = {
  'subscriptions.change': resumeChange,
  'subscriptions.cancel': resumeCancel,
  'subscriptions.renew': resumeRenewal,
  'subscriptions.end': resumeEnd,
  'payments.settle': resumeSettlement,
  'payments.reverse': resumeReversal,
  'payments.refund': resumeRefund,
  'credits.apply': resumeApplication,
  'billing.operator': resumeOperatorCommand,
};

/** The key resolver; with Redis, connected to the other instances for revocations. */
function keyResolver(config: Config, database: Database, clock: Clock, logger: Logger): ApiKeyResolver {
  const resolver = new ApiKeyResolver(database.db, clock, config.apiKeyCacheTtlMs, logger);
  if (config.redisUrl)
    resolver.connect(redisRevocationBus(config.redisUrl, logger, (id) => resolver.drop(id)));
  return resolver;
}

export function createDeps(
  config: Config,
  database: Database,
  logger: Logger,
  overrides: Partial<Pick<Deps, 'clock' | 'rateLimiter' | 'usage' | 'keyRing'>> & {
    /** Wraps every billing adapter handed out (tests inject faults with it). */
    wrapBilling?: (adapter: BillingAdapter) => BillingAdapter;
  } = {},
): Deps {
  const clock = overrides.clock ?? systemClock;
  return {
    config,
    database,
    db: database.db,
    clock,
    logger,
    apiKeys: keyResolver(config, database, clock, logger),
    rateLimiter:
      overrides.rateLimiter ??
      (config.redisUrl ? new RedisRateLimiter(config.redisUrl, logger) : new MemoryRateLimiter()),
    billing: new BillingRegistry([builtinFactory({ db: database.db, clock })], overrides.wrapBilling),
    deliveries: deliverySignalFor(database),
    fanOut: fanOutFromEvents,
    usage: overrides.usage ?? {
      recordOrder: (tenantId, orderId, quantity) =>
        recordOrderUsage(database.db, tenantId, orderId, quantity, clock.now()),
    },
    // Credit applied to an order's invoice moves the order in the same unit of work. Injected here,
    // not imported by credits: orders import credits (credit on issue), so the reverse is a cycle.
    invoiceMoneyMoved: orderFollowsInvoice,
    lookups: {
      orderSessions,
      order: getOrder,
      orderOfInvoice,
      moveOrderMoney,
    },
    intentHandlers: INTENT_HANDLERS,
    keyRing: overrides.keyRing ?? loadKeyRing(config),
  };
}
