import type { RequestContext } from '../../../http/context.js';
import { type ActionSpec, envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import type { PaymentMethodApi } from '../service.js';

export const TAGS = ['Payment methods'];

export const methodResponse =
  (status: number) =>
  (method: PaymentMethodApi, ctx: RequestContext): Presented => ({
    status,
    body: envelope(ctx, method, methodActions(method)),
  });

export function methodActions(method: PaymentMethodApi): ActionSpec[] {
  return [
    next('self', 'getPaymentMethod', { id: method.id }),
    next('setDefault', 'setDefaultPaymentMethod', { id: method.id }),
    next('accountPaymentMethods', 'listAccountPaymentMethods', { id: method.accountId }),
  ];
}
