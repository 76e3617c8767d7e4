import pino, { type Logger } from 'pino';
import type { BillingAdapter } from './billing/adapter.js';
import { builtinFactory } from './billing/builtin/index.js';
import { instrumentAdapter } from './billing/instrumented.js';
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
import { operatorOperation } from './modules/billing-admin/index.js';
import { queueOrderUpdated, sessionCountsByStatus } from './modules/checkout-sessions/index.js';
import { applyOperation } from './modules/credits/index.js';
import {
  getOrder,
  moveOrderMoney,
  orderFollowsInvoice,
  orderOfInvoice,
  orderOperation,
  recordOrderUsage,
} from './modules/orders/index.js';
import {
  orderPaymentsRead,
  refundOperation,
  reverseOperation,
  settleOperation,
} from './modules/payments/index.js';
import {
  cancelOperation,
  changeOperation,
  createOperation,
  endOperation,
  renewOperation,
} from './modules/subscriptions/index.js';
import { ConsoleSessionResolver } from './modules/team/index.js';
import { deliveryQueueStats, fanOutFromEvents } from './modules/webhooks/index.js';
import { Metrics } from './observability/metrics.js';
import { RequestErrorLog } from './observability/request-errors.js';
import { type OrderChanged, operationRegistry, pendingIntentStats } from './unit-of-work/index.js';

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

/**
 * Every declared operation (src/unit-of-work/declared-operation.ts): the reconciler resumes each
 * roll-forward intent left pending by its operation's name. One left out, or listed twice, stops
 * the start-up.
 */
const OPERATIONS = operationRegistry([
  createOperation,
  changeOperation,
  cancelOperation,
  renewOperation,
  endOperation,
  settleOperation,
  reverseOperation,
  refundOperation,
  applyOperation,
  operatorOperation,
  orderOperation,
]);

/** The key resolver; with Redis, connected to the other instances for revocations. */
function keyResolver(config: Config, database: Database, clock: Clock, logger: Logger): ApiKeyResolver {
  const resolver = new ApiKeyResolver(database.db, clock, config.apiKeyCacheTtlMs, logger);
  if (config.redisUrl)
    resolver.connect(redisRevocationBus(config.redisUrl, logger, (id) => resolver.drop(id)));
  return resolver;
}

/**
 * The deployment's metrics: on with METRICS_TOKEN (the operator's key to GET /metrics), their
 * gauges read on scrape from the database, every tenant's.
 */
function deploymentMetrics(config: Config, database: Database, clock: Clock): Metrics {
  const metrics = new Metrics(config.metricsToken !== undefined);
  if (!metrics.enabled) return metrics;
  metrics.observeState(
    {
      webhookQueue: () => deliveryQueueStats(database.db, clock.now()),
      openIntents: () => pendingIntentStats(database.db, clock.now()),
      checkoutSessions: () => sessionCountsByStatus(database.db, clock.now()),
      pool: () => database.poolStats?.(),
    },
    () => clock.now().getTime(),
  );
  return metrics;
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
  const metrics = deploymentMetrics(config, database, clock);
  const wrapBilling = overrides.wrapBilling;
  // A placed order's later changes reach the platform whose checkout placed it (UCP's order
  // webhook), in the unit of work that changed it; `deps` is bound once it exists.
  const orderChanged: OrderChanged = (u, order) => queueOrderUpdated(deps)(u, order);
  const deps: Deps = {
    config,
    database,
    db: database.db,
    clock,
    logger,
    apiKeys: keyResolver(config, database, clock, logger),
    consoleSessions: new ConsoleSessionResolver(database.db, clock),
    rateLimiter:
      overrides.rateLimiter ??
      (config.redisUrl ? new RedisRateLimiter(config.redisUrl, logger) : new MemoryRateLimiter()),
    // Counted and traced outside a test's fault wrapper: the faults it injects are counted too.
    billing: new BillingRegistry([builtinFactory({ db: database.db, clock })], (adapter) =>
      instrumentAdapter(wrapBilling ? wrapBilling(adapter) : adapter, metrics),
    ),
    deliveries: deliverySignalFor(database),
    fanOut: fanOutFromEvents,
    usage: overrides.usage ?? {
      recordOrder: (tenantId, orderId, quantity) =>
        recordOrderUsage(database.db, tenantId, orderId, quantity, clock.now()),
    },
    // Credit applied to an order's invoice moves the order in the same unit of work. Injected here,
    // not imported by credits: orders import credits (credit on issue), so the reverse is a cycle.
    invoiceMoneyMoved: orderFollowsInvoice,
    orderChanged,
    lookups: {
      orderPayments: orderPaymentsRead,
      order: getOrder,
      orderOfInvoice,
      async moveOrderMoney(u, orderId, money) {
        const order = await moveOrderMoney(u, orderId, money);
        if (order) await orderChanged(u, order);
        return order;
      },
    },
    intentHandlers: OPERATIONS,
    requestErrors: new RequestErrorLog(() => clock.now()),
    keyRing: overrides.keyRing ?? loadKeyRing(config),
    metrics,
  };
  return deps;
}
