import type { Deps } from '../../deps.js';
import type { TypedApp } from '../../http/types.js';

// Placeholder until the policies module lands (issue "Catalog, pricing engine...").
export function registerPolicyRoutes(_app: TypedApp, _deps: Deps) {}
