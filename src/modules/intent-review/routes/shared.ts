export const tags = ['Billing admin'];
export const ABOUT =
  'An intent is recorded before an operation calls the billing system (provisioning a subscription, issuing an ' +
  'invoice, settling or reversing a payment...), with the idempotency key of each call; the operation closes it ' +
  'with its own commit. One left pending (a crash, a timeout) is finished or undone by the reconciler, so the ' +
  'billing system and this API agree.';
