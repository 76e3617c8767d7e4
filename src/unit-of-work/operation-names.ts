/**
 * The operations with an external effect, each declared once (declared-operation.ts). The name is
 * stored in its intent row (`intents.operation`) and keys the reconciler's registry: renaming one
 * strands the intents left pending under the old name.
 */
export const OPERATION_NAMES = [
  'subscriptions.create',
  'subscriptions.change',
  'subscriptions.cancel',
  'subscriptions.renew',
  'subscriptions.end',
  'payments.settle',
  'payments.reverse',
  'payments.refund',
  'credits.apply',
  'billing.operator',
  'orders.create',
] as const;

export type OperationName = (typeof OPERATION_NAMES)[number];
