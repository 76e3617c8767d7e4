/** One error response, as the request log line records it. */
export interface RequestErrorEntry {
  method: string;
  route: string | null;
  operationId: string | null;
  status: number;
  code: string | null;
  message: string | null;
  requestId: string;
  at: Date;
}

/**
 * The latest error responses (status >= 400) of this process, per tenant: a ring of `perTenant`
 * entries for each of at most `tenants` tenants (the one written least recently is dropped first).
 * In memory only: a restart or another instance starts empty, which is what "recent errors of this
 * instance" means; the request log lines are the durable record.
 */
export class RequestErrorLog {
  private readonly rings = new Map<string, RequestErrorEntry[]>();

  constructor(
    /** The clock's time (a test clock's in tests): when an entry was recorded. */
    private readonly now: () => Date,
    private readonly perTenant = 100,
    private readonly tenants = 1_000,
  ) {}

  record(tenantId: string, answered: Omit<RequestErrorEntry, 'at'>) {
    const entry = { ...answered, at: this.now() };
    const ring = this.rings.get(tenantId) ?? [];
    // Re-inserted so the map's order is "least recently written first".
    this.rings.delete(tenantId);
    ring.push(entry);
    if (ring.length > this.perTenant) ring.shift();
    this.rings.set(tenantId, ring);
    if (this.rings.size > this.tenants) {
      const oldest = this.rings.keys().next().value;
      if (oldest !== undefined) this.rings.delete(oldest);
    }
  }

  /** The tenant's entries, newest first, optionally only those of one status class or more. */
  recent(tenantId: string, options: { minStatus?: number | undefined } = {}): RequestErrorEntry[] {
    const ring = this.rings.get(tenantId) ?? [];
    const min = options.minStatus ?? 400;
    return ring.filter((e) => e.status >= min).reverse();
  }
}
