import type { OperationContext, RateTier } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import type { Scope } from '../../core/scopes.js';
import { diffChanges, type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import { type ApiKey, getApiKey, issueApiKey, revokeApiKey } from './service.js';

export interface IssuedKey {
  apiKey: ApiKey;
  /** The secret, in this result only: it is stored as a hash. */
  secret: string;
}

/** POST /admin/api-keys: a key for this tenant in this deployment's environment. */
export function createApiKey(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { name: string; scopes: Scope[]; rateTier?: RateTier | undefined },
  key: OperationKey<IssuedKey>,
): Promise<IssuedKey> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const issued = await issueApiKey(u.tx, ctx.tenantId, {
      name: input.name,
      scopes: input.scopes,
      rateTier: input.rateTier ?? 'standard',
      environment: deps.config.appEnv,
    });
    const { apiKey } = issued;
    await u.audit({
      action: 'api_key.create',
      resourceType: 'api_key',
      resourceId: apiKey.id,
      details: { name: apiKey.name, scopes: apiKey.scopes, rateTier: apiKey.rateTier },
    });
    return issued;
  });
}

/** POST /admin/api-keys/{id}/revoke: revoked already, it is returned unchanged (no audit entry). */
export function revokeKey(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { keyId: string },
  key: OperationKey<ApiKey>,
): Promise<ApiKey> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const before = await getApiKey(u.tx, ctx.tenantId, input.keyId);
    if (!before) throw notFound('API key');
    if (before.revokedAt) return before;
    const revoked = await revokeApiKey(u.tx, ctx.tenantId, before.id, u.now);
    if (!revoked) throw notFound('API key');
    await u.audit({
      action: 'api_key.revoke',
      resourceType: 'api_key',
      resourceId: revoked.id,
      details: diffChanges({ revokedAt: before.revokedAt }, { revokedAt: revoked.revokedAt }),
    });
    return revoked;
  });
}
