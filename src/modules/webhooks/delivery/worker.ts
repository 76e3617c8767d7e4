import type { Logger } from 'pino';
import type { Clock } from '../../../clock.js';
import type { KeyRing } from '../../../core/key-ring.js';
import type { Db } from '../../../db/client.js';
import { deliveryBody, signDelivery } from '../../../events/signing.js';
import {
  type AttemptResult,
  type ClaimedDelivery,
  claimDueDeliveries,
  recordAttempts,
} from '../delivery-queue.js';
import { afterAttempt } from './schedule.js';
import type { Sender } from './sender.js';

export interface DeliveryWorkerDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Opens the subscriptions' sealed signing secrets. */
  keyRing: KeyRing;
  sender: Sender;
}

export interface DeliveryWorkerOptions {
  /** Deliveries in flight at once. */
  concurrency: number;
  /** How often an idle worker looks for due deliveries anyway (retries, missed signals). */
  pollIntervalMs: number;
  /** Most deliveries claimed in one statement. */
  claimBatch?: number;
  /**
   * How long a claim holds a delivery. Longer than an attempt can take (DNS + 10 s), so a live
   * worker never loses its claim; after a crash the delivery is due again when it ends.
   */
  leaseMs?: number;
  /** Serve only these tenants (tests sharing a database; pinning tenants to workers); all when absent. */
  tenantIds?: readonly string[];
}

const DEFAULT_CLAIM_BATCH = 100;
const DEFAULT_LEASE_MS = 60_000;
/**
 * Results waiting to be written, per send slot, before claiming pauses: writes batch whatever
 * piled up meanwhile, so a slow database makes bigger writes rather than idle slots.
 */
const UNRECORDED_PER_SLOT = 4;
/** Wait after a database error before claiming again. */
const ERROR_BACKOFF_MS = 1_000;

/**
 * Sends due webhook deliveries: claims them in batches (FOR UPDATE SKIP LOCKED, so several
 * workers share the queue without sending one delivery twice at once), sends up to
 * `concurrency` at a time, and writes attempt results in batches as they come back.
 *
 * `start()` runs the loop, woken by `wake()` (in-process signal or PostgreSQL NOTIFY) and by
 * polling; tests call `drain()` instead, with a manual clock.
 */
export class DeliveryWorker {
  /**
   * Most deliveries claimed and waiting for a slot: one claim's worth, and never more than the
   * slots, so none waits longer than one attempt per slot before its own (well inside a lease).
   */
  private readonly readyMax: number;
  /** Claim again when this few are ready. */
  private readonly lowWater: number;
  private readonly leaseMs: number;
  private readonly maxUnrecorded: number;
  private inFlight = 0;
  /** Claimed, waiting for a free slot (FIFO). */
  private readonly ready: ClaimedDelivery[] = [];
  private results: AttemptResult[] = [];
  /** Results in the write under way. */
  private writing = 0;
  private flushing: Promise<void> | undefined;
  private woken = false;
  /** Tenants wake-ups named since the last claim. */
  private readonly hinted = new Set<string>();
  private wakeWaiter: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly settled = new Set<() => void>();

  constructor(
    private readonly deps: DeliveryWorkerDeps,
    private readonly options: DeliveryWorkerOptions,
  ) {
    this.readyMax = Math.min(options.claimBatch ?? DEFAULT_CLAIM_BATCH, options.concurrency);
    this.lowWater = Math.floor(this.readyMax / 2);
    this.maxUnrecorded = UNRECORDED_PER_SLOT * options.concurrency;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** Something may be due (queued by these tenants, when known): look now rather than at the next poll. */
  wake(queuedBy?: readonly string[]): void {
    for (const tenantId of queuedBy ?? []) this.hinted.add(tenantId);
    this.woken = true;
    this.wakeWaiter?.();
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Stops claiming, sends what it holds (in flight and ready) and writes the results. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
    await this.idle();
  }

  /**
   * Sends everything due now, until nothing is (tests, with a manual clock): returns how many
   * attempts were made. Not to be mixed with `start()`.
   */
  async drain(): Promise<number> {
    let attempts = 0;
    for (;;) {
      const claimed = await this.claimAndSend(this.readyMax);
      await this.idle();
      if (claimed === 0) return attempts;
      attempts += claimed;
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      // Results not yet written are bounded: past the bound, claim again once a write catches up.
      if (this.unrecorded >= this.maxUnrecorded) {
        await this.flush();
        continue;
      }
      // Claimed deliveries wait ready for a slot, up to one batch of them: a slot that frees
      // starts the next at once, and the claim's round trip runs while slots are busy.
      const room = this.readyMax - this.ready.length;
      let claimed = 0;
      if (this.ready.length <= this.lowWater) {
        try {
          claimed = await this.claimAndSend(room);
        } catch (err) {
          this.deps.logger.warn({ err }, 'webhook delivery claim failed; retrying');
          await this.sleep(ERROR_BACKOFF_MS);
          continue;
        }
      }
      // A full claim may mean more is due: go again once the ready ones run low.
      if (claimed < room || this.ready.length > this.lowWater) {
        await this.sleep(this.options.pollIntervalMs);
      }
    }
  }

  /** Waits for `ms`, a wake-up, or the ready deliveries running low, whichever comes first. */
  private sleep(ms: number): Promise<void> {
    if (this.woken || this.stopped) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeWaiter = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeWaiter = done;
    });
  }

  private async claimAndSend(limit: number): Promise<number> {
    const hinted = [...this.hinted];
    this.hinted.clear();
    const claimed = await claimDueDeliveries(
      this.deps.db,
      this.deps.clock.now(),
      limit,
      this.leaseMs,
      this.options.tenantIds,
      hinted,
    ).catch((err) => {
      for (const tenantId of hinted) this.hinted.add(tenantId);
      throw err;
    });
    this.ready.push(...claimed);
    this.startReady();
    return claimed.length;
  }

  /** Starts ready deliveries while slots are free. */
  private startReady(): void {
    while (this.inFlight < this.options.concurrency && this.ready.length > 0) {
      const delivery = this.ready.shift() as ClaimedDelivery;
      this.inFlight++;
      void this.attempt(delivery).finally(() => {
        this.inFlight--;
        this.startReady();
        if (this.ready.length === this.lowWater) this.wake();
        this.notifySettled();
      });
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const attemptedAt = this.deps.clock.now();
    const event = {
      id: delivery.eventId,
      type: delivery.eventType,
      occurredAt: delivery.occurredAt,
      tenantId: delivery.tenantId,
      data: delivery.payload,
    };
    const body = deliveryBody(event);
    let outcome: Awaited<ReturnType<Sender['send']>>;
    try {
      const headers = signDelivery(event, body, this.secretsOf(delivery, attemptedAt), attemptedAt);
      outcome = await this.deps.sender.send(delivery.url, body, headers);
    } catch (err) {
      // Only the unexpected lands here (a secret that no longer decrypts): recorded as a failure.
      this.deps.logger.error({ err, eventId: delivery.eventId }, 'webhook delivery could not be prepared');
      const error = err instanceof Error ? err.message : String(err);
      outcome = {
        ok: false,
        responseStatus: null,
        durationMs: 0,
        responseBody: null,
        error,
        retryAfterSeconds: null,
      };
    }
    const next = afterAttempt(delivery.cycleAttempts + 1, outcome.ok, outcome.retryAfterSeconds, attemptedAt);
    this.results.push({
      tenantId: delivery.tenantId,
      subscriptionId: delivery.subscriptionId,
      eventId: delivery.eventId,
      leaseToken: delivery.leaseToken,
      rowRef: delivery.rowRef,
      attemptedAt,
      status: next.status,
      nextAttemptAt: next.nextAttemptAt,
      responseStatus: outcome.responseStatus,
      durationMs: outcome.durationMs,
      responseBody: outcome.responseBody,
      error: outcome.error,
    });
    // Written in the background: the slot frees now, so sending never waits for the database.
    void this.flush();
  }

  /** The current secret, and the previous one while its rotation overlap lasts. */
  private secretsOf(delivery: ClaimedDelivery, at: Date): string[] {
    const ring = this.deps.keyRing;
    const secrets = [ring.open('webhook_secret', delivery.secretCiphertext)];
    const previousValid = delivery.previousSecretExpiresAt && delivery.previousSecretExpiresAt > at;
    if (delivery.previousSecretCiphertext && previousValid) {
      secrets.push(ring.open('webhook_secret', delivery.previousSecretCiphertext));
    }
    return secrets;
  }

  /**
   * Writes buffered results, one statement per batch; while a write runs, results pile up for the
   * next. A failed write is retried; if the process dies first, the leases run out and the
   * deliveries are sent again (at least once, never lost).
   */
  private flush(): Promise<void> {
    this.flushing ??= (async () => {
      while (this.results.length > 0) {
        const batch = this.results;
        this.results = [];
        this.writing = batch.length;
        try {
          await recordAttempts(this.deps.db, batch, this.deps.clock.now());
        } catch (err) {
          // Stopping: give up; the leases run out and the deliveries are sent again.
          if (this.stopped) {
            this.deps.logger.warn({ err, count: batch.length }, 'webhook attempts not recorded at shutdown');
            break;
          }
          this.deps.logger.warn({ err, count: batch.length }, 'recording webhook attempts failed; retrying');
          this.results.unshift(...batch);
          await new Promise((r) => setTimeout(r, ERROR_BACKOFF_MS));
        }
      }
    })().finally(() => {
      this.writing = 0;
      this.flushing = undefined;
      // A result pushed after the last batch was taken, before this ran, found the write still
      // under way: write it now rather than with the next one (or after its lease ran out).
      if (this.results.length > 0 && !this.stopped) void this.flush();
    });
    return this.flushing;
  }

  /** Attempt results not yet written: waiting, or in the write under way. */
  private get unrecorded(): number {
    return this.results.length + this.writing;
  }

  /** Resolves when nothing is ready or in flight and every result is written. */
  private async idle(): Promise<void> {
    while (this.inFlight > 0 || this.ready.length > 0) {
      await new Promise<void>((resolve) => this.settled.add(resolve));
    }
    while (this.flushing || this.results.length > 0) await this.flush();
  }

  private notifySettled() {
    for (const resolve of this.settled) resolve();
    this.settled.clear();
  }
}
