import type { Static } from 'typebox';
import type { OperationContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import type { CreatePaymentMethodBody } from './schemas.js';
import { insertPaymentMethod, type PaymentMethodApi, setDefaultPaymentMethod } from './service.js';

/** POST /payment-methods: a local reference; an account's first becomes its default. */
export function addPaymentMethod(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: Static<typeof CreatePaymentMethodBody>,
  key: OperationKey<PaymentMethodApi>,
): Promise<PaymentMethodApi> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const method = await insertPaymentMethod(u.tx, ctx.tenantId, input, u.now);
    await u.audit({
      action: 'payment_method.create',
      resourceType: 'payment_method',
      resourceId: method.id,
      details: { accountId: method.accountId, isDefault: method.isDefault },
    });
    return method;
  });
}

/** POST /payment-methods/{id}/set-default: exactly one default per account (the last call wins). */
export function makeDefaultPaymentMethod(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { methodId: string },
  key: OperationKey<PaymentMethodApi>,
): Promise<PaymentMethodApi> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const result = await setDefaultPaymentMethod(u.tx, ctx.tenantId, input.methodId, u.now);
    if (!result) throw notFound('Payment method');
    if (result.changed)
      await u.audit({
        action: 'payment_method.set_default',
        resourceType: 'payment_method',
        resourceId: result.method.id,
        details: {
          before: { isDefault: false },
          after: { isDefault: true },
          accountId: result.method.accountId,
          previousDefaultId: result.previousDefaultId,
        },
      });
    return result.method;
  });
}
