import type { Deps } from '../../deps.js';
import type { TypedApp } from '../../http/types.js';

// Placeholder until the shipping module lands (issue "Catalog, pricing engine...").
export function registerShippingRoutes(_app: TypedApp, _deps: Deps) {}
