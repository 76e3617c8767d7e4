import type { Static } from 'typebox';
import type { OperationContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { diffChanges, type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import { pricingDataFor } from '../catalog/index.js';
import { emitCrossings } from './movements.js';
import type { SetProductStockBody } from './schemas.js';
import { type ProductStockApi, presentStock, readStock } from './service.js';
import { productStock } from './tables.js';

/**
 * PUT /admin/products/{id}/stock: sets the product's tracking, count, threshold and override under
 * the stock row's lock; `reserved` is kept (placed orders still hold their units). Audit
 * `product.stock_set`; a count that crosses the threshold or zero emits the crossing events.
 */
export async function setProductStock(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { productId: string; stock: Static<typeof SetProductStockBody> },
  key: OperationKey<ProductStockApi>,
): Promise<ProductStockApi> {
  const { products } = await pricingDataFor(deps.db, ctx.tenantId, [input.productId]);
  if (products.length === 0) throw notFound('Product');
  const body = input.stock;
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const before = await readStock(u.tx, ctx.tenantId, input.productId, true);
    const values = {
      tracked: body.tracked,
      onHand: body.onHand ?? 0,
      lowThreshold: body.lowStockThreshold ?? null,
      availability: body.availability ?? null,
      updatedAt: u.now,
    };
    const [after] = await u.tx
      .insert(productStock)
      .values({
        tenantId: ctx.tenantId,
        productId: input.productId,
        reserved: 0,
        createdAt: u.now,
        ...values,
      })
      .onConflictDoUpdate({ target: [productStock.tenantId, productStock.productId], set: values })
      .returning();
    if (!after) throw new Error('product_stock upsert returned no row');
    const shown = presentStock(input.productId, after);
    const was = presentStock(input.productId, before);
    await u.audit({
      action: 'product.stock_set',
      resourceType: 'product',
      resourceId: input.productId,
      details: diffChanges(
        {
          tracked: was.tracked,
          onHand: was.onHand,
          lowStockThreshold: was.lowStockThreshold,
          availability: was.availability,
        },
        {
          tracked: shown.tracked,
          onHand: shown.onHand,
          lowStockThreshold: shown.lowStockThreshold,
          availability: shown.availability,
        },
      ),
    });
    // Crossings count from what was available while tracked (untracked: nothing was counted).
    const availableBefore = before?.tracked ? before.onHand - before.reserved : Number.POSITIVE_INFINITY;
    await emitCrossings(u, availableBefore, after);
    return shown;
  });
}
