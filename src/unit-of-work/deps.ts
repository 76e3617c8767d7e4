import type { Logger } from 'pino';
import type { Invoice } from '../billing/adapter.js';
import type { BillingRegistry } from '../billing/registry.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { KeyRing } from '../core/key-ring.js';
import type { Database, Db, Queryable } from '../db/client.js';
import type { ScalarRead } from '../db/read-together.js';
import type { DeliverySignal } from '../events/delivery-signal.js';
import type { Metrics } from '../observability/metrics.js';
import type { Intent } from './intents.js';
import type { OperationName } from './operation-names.js';
import type { EventFanOut, UnitOfWork } from './unit-of-work.js';

/** Platform usage metering (tenants opt in); fed after responses, never affecting them. */
export interface UsageMeter {
  recordOrder(tenantId: string, orderId: string, quantity: number): Promise<void>;
}

/**
 * In the unit of work that moved an invoice's money by a step of a module that must not know who
 * follows the invoice (credit applied to it: orders import credits, so credits cannot import
 * orders without a cycle): the invoice's order moves its `paymentStatus`. The composition root
 * (src/deps.ts) hands it in, as it hands in the usage meter.
 */
export type InvoiceMoneyMoved = (u: UnitOfWork, invoice: Invoice) => Promise<void>;

/** A payment session paying an order, as the order's responses show it. */
export interface OrderPaymentView {
  id: string;
  amountCents: number;
  status: string;
  refundedCents: number;
  reversed: boolean;
  /** ISO 8601. */
  createdAt: string;
}

/** What moves an order's money (its `paymentStatus` follows). */
export interface OrderMoney {
  /** Added to what is paid (negative: a reversal). */
  paidCents?: number;
  /** Added to what was given back. */
  refundedCents?: number;
  /** Paid as the order's invoice says now (amount less balance): replaces `paidCents`. */
  invoice?: Invoice;
}

/** An order as a payment for it sees it. */
export interface PayableOrder {
  id: string;
  currency: string;
  invoiceId: string | null;
  paymentStatus: string;
  dueCents: number;
  paidCents: number;
}

/**
 * What one module asks of another that sits above it (the other imports it, so the reverse import
 * would be a cycle): orders import subscriptions and payments, yet a payment moves its order's
 * money, an order shows its sessions and a subscription may name its order. The composition root
 * (src/deps.ts) hands them in.
 */
export interface ModuleLookups {
  /** The payment sessions paying an order (payments). */
  orderPayments(tenantId: string, orderId: string): ScalarRead<OrderPaymentView[]>;
  /** The tenant's order (`lock`: under its row lock, in a transaction), or undefined (orders). */
  order(db: Queryable, tenantId: string, orderId: string, lock?: boolean): Promise<PayableOrder | undefined>;
  /** The order whose invoice this is (orders). */
  orderOfInvoice(db: Queryable, tenantId: string, invoiceId: string): Promise<string | undefined>;
  /** In the unit of work: moves the order's money and status, emitting what changed (orders). */
  moveOrderMoney(u: UnitOfWork, orderId: string, money: OrderMoney): Promise<ChangedOrder | undefined>;
}

/** An order as a change left it: enough to know whether an agentic checkout placed it. */
export interface ChangedOrder {
  id: string;
  checkoutSessionId: string | null;
}

/**
 * Run in each unit of work that changes an order after it was placed (its status, its money): the
 * protocol that placed it tells its platform, in the same unit (UCP's order webhook). Handed in by
 * the composition root: orders cannot import checkout sessions, which place orders.
 */
export type OrderChanged = (u: UnitOfWork, order: ChangedOrder) => Promise<void>;

/**
 * Finishes an operation left pending: when one of its calls took effect, re-runs the remaining
 * calls (same keys, so the billing system applies each once) and commits its local record,
 * closing the intent (`completed`); when none did, closes it `abandoned` and gives its subject
 * back. Each declared operation has one (declared-operation.ts); the composition root gathers them.
 */
export type ResumeIntent = (deps: ServiceDeps, intent: Intent) => Promise<'completed' | 'abandoned'>;
export type IntentHandlers = Readonly<Record<OperationName, ResumeIntent>>;

/**
 * What operations and services need from the outside world, whoever runs them (a request, the
 * scheduler, a provider event, the reconciler). Built once in the composition root (src/deps.ts).
 */
export interface ServiceDeps {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Billing adapters, and each tenant's active integration. */
  billing: BillingRegistry;
  usage: UsageMeter;
  /** Run in each unit of work that applies credit to an invoice (see InvoiceMoneyMoved). */
  invoiceMoneyMoved: InvoiceMoneyMoved;
  /** Run in each unit of work that changes a placed order (see OrderChanged). */
  orderChanged: OrderChanged;
  lookups: ModuleLookups;
  /** Tells webhook delivery workers that a committed write queued deliveries. */
  deliveries: DeliverySignal;
  /** What follows from a unit's events, in the statement that writes them (webhook deliveries). */
  fanOut: EventFanOut;
  /** The reconciler's handlers of the declared operations, by name (operationRegistry). */
  intentHandlers: IntentHandlers;
  /** Seals and opens the secrets kept at rest. */
  keyRing: KeyRing;
  /** The Prometheus metrics (GET /metrics); its record calls do nothing while metrics are off. */
  metrics: Metrics;
}
