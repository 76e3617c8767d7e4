import type { Logger } from 'pino';
import type { Clock } from '../../../clock.js';
import type { KeyRing } from '../../../core/key-ring.js';
import type { Db, Queryable } from '../../../db/client.js';
import { isLoopbackUrl } from '../url-safety.js';
import { FAIR_SHARE_DEFAULTS, FairShare, type FairShareOptions, type UsedUp, usedUp } from './fair-share.js';
import { type PrepareDeps, prepareDelivery } from './prepare.js';
import { activeSubscriptions, type ClaimedDelivery, claimDueDeliveries } from './queue.js';
import { ERROR_BACKOFF_MS, ResultWriter } from './result-writer.js';
import { afterAttempt } from './schedule.js';
import type { Sender, SendOutcome } from './sender.js';

export interface DeliveryWorkerDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Opens the subscriptions' sealed signing secrets (and the sellers' signing keys). */
  keyRing: KeyRing;
  sender: Sender;
  /**
   * What `acp` deliveries build their ACP order from (the order's payments, the base of its
   * permalink); without it they fail. `reads`: the connections those reads and the sellers' keys
   * use (default `db`, which claims and results keep to themselves in a server).
   */
  acp?: PrepareDeps['acp'];
  reads?: Queryable;
  /**
   * Whether a tenant allows loopback targets now (its `allowLoopbackWebhooks`, sandbox only),
   * asked before each attempt to a loopback URL; absent: never (production).
   */
  loopbackAllowed?: (tenantId: string) => Promise<boolean>;
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
  /**
   * The fair share of the slots (fair-share.ts): deliveries per tenant and per receiver, and the
   * back-off of a receiver that keeps timing out. Defaults: FAIR_SHARE_DEFAULTS, each at most
   * `concurrency`.
   */
  fairShare?: Partial<FairShareOptions>;
  /**
   * How long a send runs before the worker asks whether its webhook is still there and active
   * (asked at most this often): a deleted or disabled webhook's sends stop then, not at their
   * timeout. Default 1,000 ms.
   */
  cancelCheckMs?: number;
}

const DEFAULT_CLAIM_BATCH = 100;
const DEFAULT_LEASE_MS = 60_000;
/**
 * Results waiting to be written, per send slot, before claiming pauses: writes batch whatever
 * piled up meanwhile, so a slow database makes bigger writes rather than idle slots.
 */
const UNRECORDED_PER_SLOT = 4;
const DEFAULT_CANCEL_CHECK_MS = 1_000;

/**
 * Sends due webhook deliveries: claims them in batches (FOR UPDATE SKIP LOCKED, so several
 * workers share the queue without sending one delivery twice at once), sends up to
 * `concurrency` at a time, each tenant and receiver within its fair share and tenants taking
 * turns for free slots, and writes attempt results in batches as they come back.
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
  private readonly cancelCheckMs: number;
  private readonly fair: FairShare;
  private readonly writer: ResultWriter;
  /** Sends under way: how to cancel each, and when it started (performance.now()). */
  private readonly sending = new Map<ClaimedDelivery, { cancel: AbortController; startedAt: number }>();
  private lastCancelCheck = 0;
  /**
   * The tenants and receivers whose room the last claim used up: it took less than asked, so a
   * send of theirs ending makes room for more and wakes the loop.
   */
  private heldBack: UsedUp = { tenants: new Set(), receivers: new Set() };
  /** The loop sleeps with more than `lowWater` ready to start: their running low wakes it. */
  private awaitingLowWater = false;
  /** Claimed, waiting for a free slot; the tenant with the fewest sends under way goes first. */
  private readonly ready: ClaimedDelivery[] = [];
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
    this.cancelCheckMs = options.cancelCheckMs ?? DEFAULT_CANCEL_CHECK_MS;
    const share = { ...FAIR_SHARE_DEFAULTS, ...options.fairShare };
    this.fair = new FairShare({
      ...share,
      tenantConcurrency: Math.min(share.tenantConcurrency, options.concurrency),
      receiverConcurrency: Math.min(share.receiverConcurrency, options.concurrency),
    });
    this.writer = new ResultWriter(deps);
  }

  /** Sends under way (operators' view, tests): in all, and this tenant's. */
  sendsUnderWay(tenantId?: string): number {
    return tenantId === undefined ? this.sending.size : this.fair.sendingOf(tenantId);
  }

  /** Receivers whose deliveries wait now because they kept timing out (operators' view, tests). */
  backedOffReceivers(): string[] {
    return this.fair.backedOff(this.deps.clock.now().getTime());
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
    this.writer.stopping = true;
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
      if (this.writer.unrecorded >= this.maxUnrecorded) {
        await this.writer.flush();
        continue;
      }
      // Claimed deliveries wait ready for a slot, up to one batch of them: a slot that frees
      // starts the next at once, and the claim's round trip runs while slots are busy.
      // Ready ones whose tenant or receiver is at its cap wait for their own slots, not counted.
      const waiting = this.startableReady();
      const room = this.readyMax - waiting;
      let claimed = 0;
      if (waiting <= this.lowWater) {
        try {
          claimed = await this.claimAndSend(room);
        } catch (err) {
          this.deps.logger.warn({ err }, 'webhook delivery claim failed; retrying');
          await this.sleep(ERROR_BACKOFF_MS);
          continue;
        }
      }
      await this.cancelGoneSends();
      // A full claim may mean more is due: go again once the ready ones run low.
      if (claimed < room || waiting > this.lowWater) {
        this.awaitingLowWater = waiting > this.lowWater;
        await this.sleep(this.options.pollIntervalMs);
        this.awaitingLowWater = false;
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
    const now = this.deps.clock.now();
    const rooms = this.fair.rooms(now.getTime());
    const claimed = await claimDueDeliveries(
      this.deps.db,
      now,
      limit,
      this.leaseMs,
      this.options.tenantIds,
      hinted,
      rooms,
    ).catch((err) => {
      for (const tenantId of hinted) this.hinted.add(tenantId);
      throw err;
    });
    for (const delivery of claimed) this.fair.hold(delivery);
    this.heldBack = usedUp(rooms, claimed.length < limit ? claimed : []);
    this.ready.push(...claimed);
    this.startReady();
    return claimed.length;
  }

  /** Starts ready deliveries while slots are free, tenants taking turns, each within its share. */
  private startReady(): void {
    while (this.sending.size < this.options.concurrency) {
      const delivery = this.nextReady();
      if (!delivery) return;
      const cancel = new AbortController();
      this.sending.set(delivery, { cancel, startedAt: performance.now() });
      this.fair.start(delivery);
      void this.attempt(delivery, cancel.signal).finally(() => {
        this.sending.delete(delivery);
        this.fair.finish(delivery);
        this.startReady();
        if (this.claimWanted(delivery)) this.wake();
        this.notifySettled();
      });
    }
  }

  /**
   * After a send ended: whether the loop should claim now. Only if few are ready to start, and
   * either it waits for that, or this send's tenant or receiver held the last claim back (its
   * ending made room). A condition, not a transition: ready ones may run low in jumps, as sends
   * of a tenant at its cap end and its ready ones become startable or not.
   */
  private claimWanted(ended: ClaimedDelivery): boolean {
    if (this.startableReady() > this.lowWater) return false;
    return (
      this.awaitingLowWater ||
      this.heldBack.tenants.has(ended.tenantId) ||
      this.heldBack.receivers.has(ended.url)
    );
  }

  private startableReady(): number {
    let n = 0;
    for (const d of this.ready) if (this.fair.canStart(d)) n++;
    return n;
  }

  /** Takes the oldest ready delivery that may start, of the tenant with the fewest sends under way. */
  private nextReady(): ClaimedDelivery | undefined {
    let best = -1;
    let fewest = Number.POSITIVE_INFINITY;
    for (const [i, d] of this.ready.entries()) {
      const sends = this.fair.sendingOf(d.tenantId);
      if (sends < fewest && this.fair.canStart(d)) {
        best = i;
        fewest = sends;
        if (sends === 0) break;
      }
    }
    return best < 0 ? undefined : this.ready.splice(best, 1)[0];
  }

  /**
   * Sends that ran longer than `cancelCheckMs` (at most once per that): if their webhook was
   * deleted or disabled meanwhile, they are cancelled, and ready ones of it are not sent (their
   * lease runs out; a deleted webhook's deliveries are gone).
   */
  private async cancelGoneSends(): Promise<void> {
    const now = performance.now();
    if (now - this.lastCancelCheck < this.cancelCheckMs) return;
    const slow = [...this.sending].filter(([, s]) => now - s.startedAt >= this.cancelCheckMs);
    if (slow.length === 0) return;
    this.lastCancelCheck = now;
    const keyOf = (d: ClaimedDelivery) => `${d.tenantId}/${d.subscriptionId}`;
    const held = [...slow.map(([d]) => d), ...this.ready];
    const keys = new Map(held.map((d) => [keyOf(d), d]));
    let active: Set<string>;
    try {
      active = await activeSubscriptions(this.deps.db, [...keys.values()]);
    } catch (err) {
      this.deps.logger.warn({ err }, 'checking webhooks of slow deliveries failed');
      return;
    }
    for (const [d, s] of slow) if (!active.has(keyOf(d))) s.cancel.abort('webhook deleted or disabled');
    for (let i = this.ready.length - 1; i >= 0; i--) {
      const d = this.ready[i] as ClaimedDelivery;
      if (active.has(keyOf(d))) continue;
      this.ready.splice(i, 1);
      this.fair.drop(d);
    }
    this.notifySettled();
  }

  private async attempt(delivery: ClaimedDelivery, cancel: AbortSignal): Promise<void> {
    const attemptedAt = this.deps.clock.now();
    const outcome = await this.send(delivery, attemptedAt, cancel);
    this.fair.outcome(delivery.url, outcome.timedOut, this.deps.clock.now().getTime());
    const attempt = delivery.cycleAttempts + 1;
    const next = afterAttempt(attempt, outcome.ok, outcome.retryAfterSeconds, attemptedAt);
    // Written in the background: the slot frees now, so sending never waits for the database.
    this.writer.add({
      attempt,
      result: {
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
      },
    });
  }

  private async send(
    delivery: ClaimedDelivery,
    attemptedAt: Date,
    cancel: AbortSignal,
  ): Promise<SendOutcome> {
    try {
      const { keyRing, clock, acp, reads, db } = this.deps;
      const prepared = await prepareDelivery({ keyRing, clock, acp, db: reads ?? db }, delivery, attemptedAt);
      const { loopbackAllowed } = this.deps;
      const loopback =
        loopbackAllowed !== undefined &&
        isLoopbackUrl(delivery.url) &&
        (await loopbackAllowed(delivery.tenantId));
      return await this.deps.sender.send(delivery.url, prepared.body, prepared.headers, cancel, { loopback });
    } catch (err) {
      // Only the unexpected lands here (a secret that no longer decrypts, an ACP order that is
      // gone): recorded as a failed attempt.
      this.deps.logger.error({ err, eventId: delivery.eventId }, 'webhook delivery could not be prepared');
      const error = err instanceof Error ? err.message : String(err);
      return {
        ok: false,
        responseStatus: null,
        durationMs: 0,
        responseBody: null,
        error,
        retryAfterSeconds: null,
        timedOut: false,
      };
    }
  }

  /** Resolves when nothing is ready or in flight and every result is written. */
  private async idle(): Promise<void> {
    while (this.sending.size > 0 || this.ready.length > 0) {
      await new Promise<void>((resolve) => this.settled.add(resolve));
    }
    await this.writer.idle();
  }

  private notifySettled() {
    for (const resolve of this.settled) resolve();
    this.settled.clear();
  }
}
