import type { Permission } from '../core/permissions.js';
import type { Scope } from '../core/scopes.js';
import { API_PREFIX } from './envelope.js';

/**
 * Writes by the area of their path (under /api/v1), first match wins. What is not listed is
 * `commerce.write` for a `commerce` route and `settings.write` for an `admin` one (the owner's
 * and admins' alone: a new admin route is closed to the other roles until it is placed here).
 */
const WRITE_AREAS: readonly [RegExp, Permission][] = [
  [/^\/payments\/[^/]+\/refunds$|^\/refunds(\/|$)/, 'refunds.write'],
  [/^\/admin\/api-keys(\/|$)/, 'api_keys.write'],
  [/^\/webhooks(\/|$)/, 'webhooks.write'],
  [/^\/admin\/(users|roles|invitations)(\/|$)/, 'team.write'],
  [
    /^\/admin\/(products|price-rules|offers|promotions|content|partners|plan-links|plan-change-rules|feeds)(\/|$)/,
    'catalog.write',
  ],
];

/** Reads of the tenant's history of actions. */
const AUDIT_READS = /^\/(audit-logs|admin\/request-errors)(\/|$)/;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * What a console session needs to call a route: `read` for every route a `read` key may call and
 * every other read (but the audit log's, `audit.read`), and for a write the permission of its area.
 */
export function routePermission(method: string, url: string, scope: Scope): Permission {
  const path = url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url;
  if (READ_METHODS.has(method)) return AUDIT_READS.test(path) ? 'audit.read' : 'read';
  if (scope === 'read') return 'read';
  for (const [area, permission] of WRITE_AREAS) if (area.test(path)) return permission;
  return scope === 'commerce' ? 'commerce.write' : 'settings.write';
}
