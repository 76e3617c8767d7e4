import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What the scrape reads of the deployment's state: every tenant's, at most once per `STATE_TTL_MS`. */
export interface StateReaders {
  /** Webhook deliveries waiting to be sent (pending or failed and due again), and the oldest one's age. */
  webhookQueue(): Promise<{ depth: number; oldestAgeSeconds: number | null }>;
  /** Operations with billing calls not yet closed (intents `pending`), and the oldest one's age. */
  openIntents(): Promise<{ pending: number; oldestAgeSeconds: number | null }>;
  /** Checkout sessions by status. */
  checkoutSessions(): Promise<Record<string, number>>;
  /** The request pool's connections (PostgreSQL); undefined on PGlite, which has one connection. */
  pool(): { size: number; inUse: number; idle: number; waiting: number } | undefined;
}

/** Database figures are read once per this, however often Prometheus scrapes (several replicas, say). */
const STATE_TTL_MS = 5_000;

// Seconds: requests run in milliseconds, a slow billing call or webhook receiver in seconds.
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Reads `read` at most once per `ms`; scrapes in between get the last answer. */
function cachedFor<T>(ms: number, now: () => number, read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    const at = now();
    if (!last || at - last.at >= ms || at < last.at) {
      const value = read();
      last = { at, value };
      value.catch(() => {
        if (last?.value === value) last = undefined;
      });
    }
    return last.value;
  };
}

/**
 * The deployment's Prometheus metrics (one registry per app, so tests can build several). Off
 * (`enabled: false`, no METRICS_TOKEN) every record call returns at once: nothing is counted.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by operation (operationId; the route for internal ones), method and status.',
    labelNames: ['operation', 'method', 'status'] as const,
    registers: [this.registry],
  });
  private readonly requestSeconds = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to its answer, by operation, method and status.',
    labelNames: ['operation', 'method', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly rateLimited = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 rate_limited, by bucket: `key` (an API key) or `ip` (no valid key).',
    labelNames: ['bucket'] as const,
    registers: [this.registry],
  });
  private readonly replays = new Counter({
    name: 'idempotency_replays_total',
    help: 'Writes answered from a stored response (X-Idempotency-Replayed: true), by operation.',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });
  private readonly billingCalls = new Counter({
    name: 'billing_adapter_calls_total',
    help: 'Billing adapter calls, by adapter, method and outcome: ok, failure (a refusal the adapter answered) or error (thrown: unavailable).',
    labelNames: ['adapter', 'method', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly billingSeconds = new Histogram({
    name: 'billing_adapter_call_duration_seconds',
    help: 'Billing adapter call latency, by adapter and method.',
    labelNames: ['adapter', 'method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: succeeded (2xx), rejected (another status), error (no answer: network, blocked target) or timeout.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly deliverySeconds = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: 'Webhook delivery attempt latency, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  constructor(readonly enabled: boolean) {}

  httpRequest(operation: string, method: string, status: number, seconds: number): void {
    if (!this.enabled) return;
    const labels = { operation, method, status: String(status) };
    this.requests.inc(labels);
    this.requestSeconds.observe(labels, seconds);
  }

  rateLimitRejected(bucket: 'key' | 'ip'): void {
    if (this.enabled) this.rateLimited.inc({ bucket });
  }

  idempotentReplay(operation: string): void {
    if (this.enabled) this.replays.inc({ operation });
  }

  billingCall(adapter: string, method: string, outcome: 'ok' | 'failure' | 'error', seconds: number): void {
    if (!this.enabled) return;
    this.billingCalls.inc({ adapter, method, outcome });
    this.billingSeconds.observe({ adapter, method }, seconds);
  }

  deliveryAttempt(outcome: 'succeeded' | 'rejected' | 'error' | 'timeout', seconds: number): void {
    if (!this.enabled) return;
    this.deliveries.inc({ outcome });
    this.deliverySeconds.observe({ outcome }, seconds);
  }

  /** Gauges computed on scrape from the database and the pool; `now` in milliseconds (the deps' clock). */
  observeState(readers: StateReaders, now: () => number): void {
    const registers = [this.registry];
    const queue = cachedFor(STATE_TTL_MS, now, readers.webhookQueue);
    const intents = cachedFor(STATE_TTL_MS, now, readers.openIntents);
    const sessions = cachedFor(STATE_TTL_MS, now, readers.checkoutSessions);
    new Gauge({
      name: 'webhook_queue_depth',
      help: 'Webhook deliveries waiting to be sent (every tenant): pending, or failed and to be retried.',
      registers,
      async collect() {
        this.set((await queue()).depth);
      },
    });
    new Gauge({
      name: 'webhook_queue_oldest_age_seconds',
      help: 'Age of the oldest webhook delivery waiting to be sent; 0 when none waits.',
      registers,
      async collect() {
        this.set((await queue()).oldestAgeSeconds ?? 0);
      },
    });
    new Gauge({
      name: 'intents_open',
      help: 'Operations whose billing calls are not closed yet (intents pending, every tenant).',
      registers,
      async collect() {
        this.set((await intents()).pending);
      },
    });
    new Gauge({
      name: 'intents_open_oldest_age_seconds',
      help: 'Age of the oldest open intent; an old one means the reconciler cannot finish it. 0 when none.',
      registers,
      async collect() {
        this.set((await intents()).oldestAgeSeconds ?? 0);
      },
    });
    new Gauge({
      name: 'checkout_sessions',
      help: 'Checkout sessions by status (every tenant).',
      labelNames: ['status'] as const,
      registers,
      async collect() {
        this.reset();
        for (const [status, count] of Object.entries(await sessions())) this.set({ status }, count);
      },
    });
    new Gauge({
      name: 'db_pool_connections',
      help: 'The request pool (PostgreSQL): its size, connections in use, idle, and queries waiting for one. Absent on PGlite (one connection, no pool).',
      labelNames: ['state'] as const,
      registers,
      collect() {
        this.reset();
        const pool = readers.pool();
        if (!pool) return;
        this.set({ state: 'size' }, pool.size);
        this.set({ state: 'in_use' }, pool.inUse);
        this.set({ state: 'idle' }, pool.idle);
        this.set({ state: 'waiting' }, pool.waiting);
      },
    });
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
