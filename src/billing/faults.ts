import { type BillingAdapter, BillingUnavailableError } from './adapter.js';

/**
 * Settings of a fault-injecting wrapper, changeable while it runs: fail every call, fail the next
 * N calls, and/or add latency. For tests of outage paths against real adapter code.
 */
export class FaultController {
  failAll = false;
  failNext = 0;
  latencyMs = 0;
  /** Calls that reached the wrapper (failed or not), by method name. */
  readonly calls: string[] = [];

  reset() {
    this.failAll = false;
    this.failNext = 0;
    this.latencyMs = 0;
    this.calls.length = 0;
  }
}

/** Every I/O method of `adapter` first waits `latencyMs`, then fails as the controller says. */
export function withFaults(adapter: BillingAdapter, faults: FaultController): BillingAdapter {
  return new Proxy(adapter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || property === 'isAccountId') return value;
      return async (...args: unknown[]) => {
        faults.calls.push(String(property));
        if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
        if (faults.failAll || faults.failNext > 0) {
          if (faults.failNext > 0) faults.failNext--;
          throw new BillingUnavailableError(`injected fault in ${String(property)}`, target.name);
        }
        return value.apply(target, args);
      };
    },
  });
}
