import type { AppEnv } from '../config.js';
import type { OperationContext, RateTier } from '../core/context.js';
import type { Scope } from '../core/scopes.js';

/**
 * Who is calling over HTTP: the operation context of the key (or of the console user signed in,
 * then `keyId` is null), with what the edge needs of it.
 */
export interface RequestContext extends OperationContext {
  keyId: string | null;
  userId: string | null;
  environment: AppEnv;
  /** Effective (expanded) scopes. */
  scopes: Scope[];
  rateTier: RateTier;
}
