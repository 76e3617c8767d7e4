import type { Static } from 'typebox';
import type { OperationContext } from '../../core/context.js';
import { AppError, validationFailed } from '../../core/errors.js';
import { type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import { resolveAccount } from '../accounts/index.js';
import { addItem, applyPromo, removeItem, removePromo } from './changes.js';
import type { CartCreate } from './schemas.js';
import { type CartApi, insertCart } from './service.js';

// The cart operations. A cart change is not audited and emits no event (see service.ts).

/** An organizationId must name one of the tenant's own accounts, not a billing-system one. */
async function checkOrganization(
  deps: ServiceDeps,
  tenantId: string,
  organizationId: string | null | undefined,
) {
  if (!organizationId) return;
  const localOnly = { db: deps.db, billing: { forTenant: async () => null } };
  const found = await resolveAccount(localOnly, tenantId, organizationId);
  if (found?.source !== 'local') {
    throw validationFailed(
      'organizationId',
      'exists',
      `organizationId ${organizationId} is not an account of this tenant (create one with POST /accounts)`,
    );
  }
}

export async function createCart(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: Static<typeof CartCreate>,
  key: OperationKey<CartApi>,
): Promise<CartApi> {
  await checkOrganization(deps, ctx.tenantId, input.organizationId);
  const { items = [], ...fields } = input;
  return runUnitOfWork(deps, ctx, key, async (u) => {
    let cart = await insertCart(u.tx, ctx.tenantId, fields, u.now);
    for (const [i, item] of items.entries()) {
      const line = { productId: item.productId, quantity: item.quantity ?? 1 };
      cart = await inLine(i, () => addItem(u.tx, ctx.tenantId, cart.id, line, u.now));
    }
    return cart;
  });
}

/** Runs a line's change, naming the line in a 400 (`items.2.productId`) as the request has it. */
async function inLine<T>(index: number, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err;
    const details = err.details?.map((d) => ({
      ...d,
      ...(d.field ? { field: `items.${index}.${d.field}` } : {}),
    }));
    throw new AppError(err.code, `items.${index}.${err.message}`, details, err.retryAfter, err.recovery);
  }
}

export const addCartItem = (
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { cartId: string; productId: string; quantity: number },
  key: OperationKey<CartApi>,
): Promise<CartApi> =>
  runUnitOfWork(deps, ctx, key, (u) =>
    addItem(
      u.tx,
      ctx.tenantId,
      input.cartId,
      { productId: input.productId, quantity: input.quantity },
      u.now,
    ),
  );

export const removeCartItem = (
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { cartId: string; itemId: string },
  key: OperationKey<CartApi>,
): Promise<CartApi> =>
  runUnitOfWork(deps, ctx, key, (u) => removeItem(u.tx, ctx.tenantId, input.cartId, input.itemId, u.now));

export const applyCartPromo = (
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { cartId: string; code: string },
  key: OperationKey<CartApi>,
): Promise<CartApi> =>
  runUnitOfWork(deps, ctx, key, (u) => applyPromo(u.tx, ctx.tenantId, input.cartId, input.code, u.now));

export const removeCartPromo = (
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { cartId: string },
  key: OperationKey<CartApi>,
): Promise<CartApi> =>
  runUnitOfWork(deps, ctx, key, (u) => removePromo(u.tx, ctx.tenantId, input.cartId, u.now));
