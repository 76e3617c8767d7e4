/**
 * Every audit action the service records: a closed list, so an `action` substring filter can be
 * resolved to exact values and answered from an index. Later modules add theirs here.
 */
const crud = <R extends string>(resource: R) =>
  [`${resource}.create`, `${resource}.update`, `${resource}.delete`] as const;

export const AUDIT_ACTIONS = [
  'api_key.create',
  'api_key.revoke',
  'account.create',
  'account.update',
  // PUT/DELETE /{accounts|orders|subscriptions|payments}/{id}/tags/{key}.
  'account.tag_set',
  'account.tag_delete',
  'order.tag_set',
  'order.tag_delete',
  'subscription.tag_set',
  'subscription.tag_delete',
  'payment.tag_set',
  'payment.tag_delete',
  'order.create',
  'order.update',
  'subscription.create',
  'subscription.change',
  'subscription.cancel',
  'subscription.renew',
  'payment.create',
  'payment.complete',
  'checkout_session.create',
  'checkout_session.update',
  'checkout_session.complete',
  'checkout_session.cancel',
  'payment_token.create',
  'payment.provider_event',
  'refund.create',
  'credit.grant',
  'credit.apply',
  'credit.expire',
  'provider_integration.update',
  'payment_method.create',
  'payment_method.set_default',
  'webhook.create',
  'webhook.update',
  'webhook.delete',
  'webhook.rotate_secret',
  'webhook.replay',
  'webhook.test',
  'tenant.update',
  'seller.update',
  'product_content.update',
  'product_content.restore',
  'billing_integration.update',
  'billing_integration.delete',
  'billing_account.create',
  'billing_invoice.create',
  'billing_invoice.void',
  'billing_invoice.mark_uncollectible',
  'billing_payment_method.create',
  ...crud('product'),
  ...crud('price_rule'),
  ...crud('offer'),
  ...crud('promotion'),
  ...crud('plan_link'),
  ...crud('plan_change_rule'),
  ...crud('policy'),
  ...crud('shipping_option'),
  ...crud('content'),
  'content.restore',
  // PUT /admin/products/{id}/stock.
  'product.stock_set',
  ...crud('partner'),
  // Console users (src/modules/team/): invitations, changes, sign-ins and their sessions.
  'console_user.create',
  'console_user.update',
  'console_user.invitation_resend',
  'console_user.invitation_revoke',
  'console_user.password_reset',
  'console_user.password_set',
  'console_user.sessions_revoke',
  'console_user.sign_in',
  'console_user.sign_out',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Known actions containing `fragment`, case-insensitively. */
export function actionsMatching(fragment: string): AuditAction[] {
  const needle = fragment.toLowerCase();
  return AUDIT_ACTIONS.filter((a) => a.includes(needle));
}
