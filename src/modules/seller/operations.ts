import { createPublicKey } from 'node:crypto';
import type { OperationContext } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { diffChanges, type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import {
  lockSellerProfile,
  readSellerProfile,
  type SellerProfileChanges,
  type StoredSellerProfile,
  upsertSellerProfile,
} from './service.js';

/**
 * PATCH /seller: writes the given fields of the seller profile (under its row lock); the audit
 * entry `seller.update` holds the fields that changed, before and after.
 */
export function updateSellerProfile(
  deps: ServiceDeps,
  ctx: OperationContext,
  changes: SellerProfileChanges,
  key: OperationKey<StoredSellerProfile>,
): Promise<StoredSellerProfile> {
  checkAcpRequestKeys(changes.acpRequestKeys);
  return runUnitOfWork(deps, ctx, key, async (u) => {
    await lockSellerProfile(u.tx, ctx.tenantId, u.now);
    const before = await readSellerProfile(u.tx, ctx.tenantId);
    await upsertSellerProfile(u.tx, ctx.tenantId, changes, u.now);
    const after = await readSellerProfile(u.tx, ctx.tenantId);
    await u.audit({
      action: 'seller.update',
      resourceType: 'seller',
      resourceId: ctx.tenantId,
      details: diffChanges({ ...before.profile }, { ...after.profile }),
    });
    return after;
  });
}

/** 400 unless every key is a point on its curve and no `kid` repeats. */
function checkAcpRequestKeys(keys: SellerProfileChanges['acpRequestKeys']) {
  const refuse = (index: number, rule: string, message: string) =>
    new AppError('validation_failed', message, [{ field: `acpRequestKeys.${index}`, rule, message }]);
  (keys ?? []).forEach((jwk, index) => {
    if (keys?.findIndex((k) => k.kid === jwk.kid) !== index)
      throw refuse(index, 'unique', `acpRequestKeys.${index}.kid ${jwk.kid} is already in the list`);
    try {
      createPublicKey({ key: jwk, format: 'jwk' });
    } catch {
      throw refuse(index, 'jwk', `acpRequestKeys.${index} is not a public key on ${jwk.crv}`);
    }
  });
}
