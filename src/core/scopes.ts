import { StringEnum } from './schema.js';

/** Scopes nest: admin includes commerce includes read. */
export const SCOPES = ['read', 'commerce', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export const ScopeSchema = StringEnum(SCOPES, {
  description: '`read` < `commerce` < `admin`; a higher scope includes the lower ones.',
});

const RANK: Record<Scope, number> = { read: 0, commerce: 1, admin: 2 };

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** The scopes a key holding `granted` effectively has, lowest first. */
export function expandScopes(granted: readonly string[]): Scope[] {
  const top = Math.max(-1, ...granted.filter(isScope).map((s) => RANK[s]));
  return SCOPES.filter((s) => RANK[s] <= top);
}

export function hasScope(effective: readonly Scope[], required: Scope | null): boolean {
  return required === null || effective.includes(required);
}
