import { StringEnum } from './schema.js';

/**
 * What a console user's role may do (src/modules/team/roles.ts maps roles to these). API keys keep
 * their scopes; a route's permission is what a console session needs for it (http/route-permission.ts).
 */
export const PERMISSIONS = [
  'read',
  'commerce.write',
  'refunds.write',
  'catalog.write',
  'webhooks.write',
  'api_keys.write',
  'settings.write',
  'team.write',
  'audit.read',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const PermissionSchema = StringEnum(PERMISSIONS, {
  description:
    '`read` (everything readable), `commerce.write` (accounts, carts, orders, subscriptions, payments), ' +
    '`refunds.write`, `catalog.write` (products, content, prices, stock, partners), `webhooks.write`, ' +
    '`api_keys.write`, `settings.write`, `team.write` (users, invitations), `audit.read`.',
});
