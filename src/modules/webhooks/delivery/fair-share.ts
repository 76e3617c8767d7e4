import type { ClaimRooms } from './queue.js';

/**
 * How one worker shares its send slots (docs/operations.md, "Inside a worker"): no tenant sends
 * more than `tenantConcurrency` deliveries at once and no receiver (webhook URL) more than
 * `receiverConcurrency`, and claims take no more of theirs than that many again to wait for a
 * slot, so a tenant whose receiver hangs leaves the other slots to everyone else. A receiver
 * that times out `backoffAfterTimeouts` times in a row is backed off: none of its deliveries is
 * claimed for `backoffMs` (doubling with each further timeout, at most MAX_BACKOFF_MS), then one
 * at a time until it answers again.
 */
export interface FairShareOptions {
  tenantConcurrency: number;
  receiverConcurrency: number;
  backoffAfterTimeouts: number;
  backoffMs: number;
}

export const FAIR_SHARE_DEFAULTS: FairShareOptions = {
  tenantConcurrency: 32,
  receiverConcurrency: 16,
  backoffAfterTimeouts: 3,
  backoffMs: 30_000,
};

const MAX_BACKOFF_MS = 600_000;

interface ReceiverHealth {
  timeouts: number;
  /** Epoch ms until which nothing of this receiver is claimed. */
  backedOffUntil: number;
}

export interface HeldDelivery {
  tenantId: string;
  url: string;
}

export class FairShare {
  /** Claimed and not finished (waiting for a slot or sending), per tenant and per receiver. */
  private readonly heldByTenant = new Map<string, number>();
  private readonly heldByReceiver = new Map<string, number>();
  /** Sending now, per tenant and per receiver. */
  private readonly sendingByTenant = new Map<string, number>();
  private readonly sendingByReceiver = new Map<string, number>();
  private readonly health = new Map<string, ReceiverHealth>();

  constructor(private readonly options: FairShareOptions) {}

  /** A claimed delivery holds a share until `finish` (its attempt ended) or `drop` (not sent). */
  hold(d: HeldDelivery): void {
    add(this.heldByTenant, d.tenantId, 1);
    add(this.heldByReceiver, d.url, 1);
  }

  drop(d: HeldDelivery): void {
    add(this.heldByTenant, d.tenantId, -1);
    add(this.heldByReceiver, d.url, -1);
  }

  /** Whether a slot may go to this delivery: its tenant and its receiver are under their caps. */
  canStart(d: HeldDelivery): boolean {
    return (
      this.sendingOf(d.tenantId) < this.options.tenantConcurrency &&
      (this.sendingByReceiver.get(d.url) ?? 0) < this.options.receiverConcurrency
    );
  }

  start(d: HeldDelivery): void {
    add(this.sendingByTenant, d.tenantId, 1);
    add(this.sendingByReceiver, d.url, 1);
  }

  finish(d: HeldDelivery): void {
    add(this.sendingByTenant, d.tenantId, -1);
    add(this.sendingByReceiver, d.url, -1);
    this.drop(d);
  }

  /** This tenant's sends under way. */
  sendingOf(tenantId: string): number {
    return this.sendingByTenant.get(tenantId) ?? 0;
  }

  /** Records how an attempt to `url` ended: a timeout counts towards a back-off, any answer clears it. */
  outcome(url: string, timedOut: boolean, nowMs: number): void {
    if (!timedOut) {
      this.health.delete(url);
      return;
    }
    const health = this.health.get(url) ?? { timeouts: 0, backedOffUntil: 0 };
    health.timeouts++;
    const beyond = health.timeouts - this.options.backoffAfterTimeouts;
    if (beyond >= 0) {
      health.backedOffUntil =
        nowMs + Math.min(MAX_BACKOFF_MS, this.options.backoffMs * 2 ** Math.min(beyond, 20));
    }
    this.health.set(url, health);
  }

  /** Receivers backed off at `nowMs` (operators' view, tests). */
  backedOff(nowMs: number): string[] {
    return [...this.health].filter(([, h]) => h.backedOffUntil > nowMs).map(([url]) => url);
  }

  /** The most this receiver may send at once now: 0 while backed off, 1 (a probe) after, until it answers. */
  private receiverLimit(url: string, nowMs: number): number {
    const health = this.health.get(url);
    if (!health || health.timeouts < this.options.backoffAfterTimeouts)
      return this.options.receiverConcurrency;
    return health.backedOffUntil > nowMs ? 0 : 1;
  }

  /**
   * What the next claim may take, given what is held now: up to twice the cap held per tenant and
   * per receiver (the cap sending, as many again claimed and waiting for a slot, so a freed slot
   * starts the next without a round trip to the database).
   */
  rooms(nowMs: number): ClaimRooms {
    const { tenantConcurrency, receiverConcurrency } = this.options;
    const tenants: Record<string, number> = {};
    for (const [tenantId, held] of this.heldByTenant)
      tenants[tenantId] = Math.max(0, 2 * tenantConcurrency - held);
    const receivers: Record<string, number> = {};
    for (const url of new Set([...this.heldByReceiver.keys(), ...this.health.keys()])) {
      const room = 2 * this.receiverLimit(url, nowMs) - (this.heldByReceiver.get(url) ?? 0);
      if (room < 2 * receiverConcurrency) receivers[url] = Math.max(0, room);
    }
    return {
      tenantDefault: 2 * tenantConcurrency,
      receiverDefault: 2 * receiverConcurrency,
      tenants,
      receivers,
    };
  }
}

/** Tenants and receivers whose room a claim used up. */
export interface UsedUp {
  tenants: Set<string>;
  receivers: Set<string>;
}

/**
 * Of a claim given `rooms`, the tenants and receivers it took all the room of (none left, or as
 * many as it had): their share, not the queue, held the claim back.
 */
export function usedUp(rooms: ClaimRooms, claimed: readonly HeldDelivery[]): UsedUp {
  const full = (listed: Record<string, number>, otherwise: number, keys: string[]) => {
    const taken = new Map<string, number>();
    for (const key of keys) taken.set(key, (taken.get(key) ?? 0) + 1);
    const out = new Set<string>();
    for (const key of new Set([...Object.keys(listed), ...taken.keys()]))
      if ((taken.get(key) ?? 0) >= (listed[key] ?? otherwise)) out.add(key);
    return out;
  };
  return {
    tenants: full(
      rooms.tenants,
      rooms.tenantDefault,
      claimed.map((d) => d.tenantId),
    ),
    receivers: full(
      rooms.receivers,
      rooms.receiverDefault,
      claimed.map((d) => d.url),
    ),
  };
}

function add(map: Map<string, number>, key: string, by: number): void {
  const n = (map.get(key) ?? 0) + by;
  if (n > 0) map.set(key, n);
  else map.delete(key);
}
