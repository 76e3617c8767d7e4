import type { BillingAdapter } from '../../../src/billing/adapter.js';
import { loadConfig } from '../../../src/config.js';
import { startServer, stopOnSignals } from '../../../src/server.js';

// The real server (as `npm start` runs it), SIGKILLed (as by the OOM killer) the moment the billing
// call named by KILL_AFTER has taken effect: after the billing system changed, before our commit.

const killAfter = process.env.KILL_AFTER;

function killAfterCall(adapter: BillingAdapter): BillingAdapter {
  return new Proxy(adapter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || property !== killAfter) return value;
      return async (...args: unknown[]) => {
        const result = await value.apply(target, args);
        if ((result as { ok?: boolean }).ok) process.kill(process.pid, 'SIGKILL');
        return result;
      };
    },
  });
}

const config = loadConfig();
stopOnSignals(await startServer(config, killAfter ? { wrapBilling: killAfterCall } : {}), config);
