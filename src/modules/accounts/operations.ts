import type { Static } from 'typebox';
import type { OperationContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { diffChanges, type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import type { AccountCreate, AccountUpdate } from './schemas.js';
import { type AccountApi, insertAccount, updateAccountRow } from './service.js';

/** POST /accounts: a tenant-owned account (organization); audit `account.create`, event `account.created`. */
export function createAccount(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: Static<typeof AccountCreate>,
  key: OperationKey<AccountApi>,
): Promise<AccountApi> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const account = await insertAccount(u.tx, ctx.tenantId, input, u.now);
    await u.audit({ action: 'account.create', resourceType: 'account', resourceId: account.id });
    await u.emit('account.created', account);
    return account;
  });
}

/** PATCH /accounts/{id}: the given fields; the audit entry holds the changed ones before and after. */
export function updateAccount(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { accountId: string; changes: Static<typeof AccountUpdate> },
  key: OperationKey<AccountApi>,
): Promise<AccountApi> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const result = await updateAccountRow(u.tx, ctx.tenantId, input.accountId, input.changes, u.now);
    if (!result) throw notFound('Account');
    const { updatedAt: _b, ...before } = result.before;
    const { updatedAt: _a, ...after } = result.after;
    const changed = diffChanges(before, after);
    // A change that did not happen records nothing.
    if (Object.keys(changed.after).length === 0) return result.after;
    await u.audit({
      action: 'account.update',
      resourceType: 'account',
      resourceId: result.after.id,
      details: changed,
    });
    await u.emit('account.updated', result.after);
    return result.after;
  });
}
