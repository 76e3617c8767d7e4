import { type BillingAdapter, BillingUnavailableError } from './adapter.js';

/**
 * Settings of a fault-injecting wrapper, changeable while it runs: fail every call, fail the next
 * N calls before they reach the billing system, let the next N calls take effect and then fail as
 * a timeout would (the caller cannot tell it happened), lose the next N calls on the way there
 * (they fail as a timeout would, but nothing happened), and/or add latency. For tests of outage
 * paths against real adapter code. `only` limits the faults to the named methods.
 */
export class FaultController {
  failAll = false;
  failNext = 0;
  applyThenFailNext = 0;
  loseNext = 0;
  latencyMs = 0;
  only: readonly string[] | null = null;
  /** While set, a call waits for it before anything else (a test holds a request mid-operation). */
  gate: Promise<void> | null = null;
  /** Calls that reached the wrapper (failed or not), by method name. */
  readonly calls: string[] = [];

  reset() {
    this.failAll = false;
    this.failNext = 0;
    this.applyThenFailNext = 0;
    this.loseNext = 0;
    this.latencyMs = 0;
    this.only = null;
    this.gate = null;
    this.calls.length = 0;
  }

  applies(method: string): boolean {
    return this.only === null || this.only.includes(method);
  }
}

/** Every I/O method of `adapter` first waits `latencyMs`, then fails as the controller says. */
export function withFaults(adapter: BillingAdapter, faults: FaultController): BillingAdapter {
  return new Proxy(adapter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || property === 'isAccountId') return value;
      const method = String(property);
      return async (...args: unknown[]) => {
        faults.calls.push(method);
        if (!faults.applies(method)) return value.apply(target, args);
        if (faults.gate) await faults.gate;
        if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
        if (faults.failAll || faults.failNext > 0) {
          if (faults.failNext > 0) faults.failNext--;
          throw new BillingUnavailableError(`injected fault in ${method}`, target.name, { effect: 'none' });
        }
        if (faults.loseNext > 0) {
          faults.loseNext--;
          throw new BillingUnavailableError(`injected timeout: ${method} was lost on its way`, target.name);
        }
        if (faults.applyThenFailNext > 0) {
          faults.applyThenFailNext--;
          await value.apply(target, args);
          throw new BillingUnavailableError(`injected timeout after ${method} took effect`, target.name);
        }
        return value.apply(target, args);
      };
    },
  });
}
