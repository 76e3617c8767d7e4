import { PERMISSIONS, type Permission } from '../../core/permissions.js';

export const ROLES = ['owner', 'admin', 'developer', 'support', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export interface RoleDefinition {
  name: Role;
  description: string;
  permissions: readonly Permission[];
}

/** The one role table (docs/conformance.md, "Console users and roles"). */
export const ROLE_DEFINITIONS: readonly RoleDefinition[] = [
  {
    name: 'owner',
    description: 'Everything, including changing or removing other owners.',
    permissions: PERMISSIONS,
  },
  {
    name: 'admin',
    description: 'Everything except changing, disabling or resetting an owner, or making someone an owner.',
    permissions: PERMISSIONS,
  },
  {
    name: 'developer',
    description: 'Reads everything and the audit log; manages webhooks, API keys and the catalog.',
    permissions: ['read', 'audit.read', 'webhooks.write', 'api_keys.write', 'catalog.write'],
  },
  {
    name: 'support',
    description:
      'Reads everything and the audit log; serves customers: accounts, carts, orders, subscriptions, payments and refunds.',
    permissions: ['read', 'audit.read', 'commerce.write', 'refunds.write'],
  },
  {
    name: 'viewer',
    description: 'Reads everything but the audit log; changes nothing.',
    permissions: ['read'],
  },
];

export function permissionsOf(role: string): readonly Permission[] {
  return ROLE_DEFINITIONS.find((r) => r.name === role)?.permissions ?? [];
}
