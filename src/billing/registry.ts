import type { Queryable } from '../db/client.js';
import { tenantWhere } from '../db/tenant-scope.js';
import { assertOutsideApiTransaction } from '../db/transaction-guard.js';
import type { BillingAdapter, BillingAdapterFactory } from './adapter.js';
import { billingIntegrations } from './tables.js';

export interface BillingIntegration {
  adapter: string;
  config: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** Every I/O method of the adapter refuses to run inside the API's write transaction. */
function guardTransactions(adapter: BillingAdapter): BillingAdapter {
  return new Proxy(adapter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || property === 'isAccountId') return value;
      return (...args: unknown[]) => {
        assertOutsideApiTransaction(`billing adapter ${target.name}.${String(property)}`);
        return value.apply(target, args);
      };
    },
  });
}

/**
 * The adapters this deployment knows, and each tenant's active one. `wrap` lets tests put a
 * fault-injecting wrapper around every adapter handed out.
 */
export class BillingRegistry {
  private readonly factories: Map<string, BillingAdapterFactory>;
  private readonly wrap: (adapter: BillingAdapter) => BillingAdapter;

  constructor(
    factories: readonly BillingAdapterFactory[],
    wrap: (adapter: BillingAdapter) => BillingAdapter = (a) => a,
  ) {
    this.wrap = (adapter) => guardTransactions(wrap(adapter));
    this.factories = new Map(factories.map((f) => [f.name, f]));
  }

  factory(name: string): BillingAdapterFactory | undefined {
    return this.factories.get(name);
  }

  names(): string[] {
    return [...this.factories.keys()];
  }

  async integration(db: Queryable, tenantId: string): Promise<BillingIntegration | undefined> {
    const [row] = await db
      .select()
      .from(billingIntegrations)
      .where(tenantWhere(billingIntegrations, tenantId));
    return (
      row && { adapter: row.adapter, config: row.config, createdAt: row.createdAt, updatedAt: row.updatedAt }
    );
  }

  /** The tenant's active adapter, or null when it has no billing integration. */
  async forTenant(db: Queryable, tenantId: string): Promise<BillingAdapter | null> {
    const integration = await this.integration(db, tenantId);
    const factory = integration && this.factories.get(integration.adapter);
    return factory ? this.wrap(factory.create(tenantId, integration.config)) : null;
  }

  /** An adapter by name for a tenant, whatever its integration (operator tools, demo seeding). */
  adapter(name: string, tenantId: string, config: Record<string, unknown> = {}): BillingAdapter | null {
    const factory = this.factories.get(name);
    return factory ? this.wrap(factory.create(tenantId, config)) : null;
  }
}
