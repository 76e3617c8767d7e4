import type { Deps } from '../../../../http/deps.js';
import { EntitlementReader } from '../reader.js';

export const TAGS = ['Entitlements'];
export const UNKNOWN =
  '404: not this tenant’s account. 409: a subscription’s product is gone or unreadable (set unknown, never empty).';

export const readers = new WeakMap<Deps, EntitlementReader>();

/** One per app (process): what it remembers is safe to keep (src/modules/subscriptions/entitlements/reader.ts). */
export function readerFor(deps: Deps): EntitlementReader {
  let reader = readers.get(deps);
  if (!reader) {
    reader = new EntitlementReader(deps);
    readers.set(deps, reader);
  }
  return reader;
}
