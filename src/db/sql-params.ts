/**
 * A value for a `${...}::jsonb` parameter of a plain `sql` statement: JSON text, or SQL NULL for
 * null/undefined (a JSON `null` is not what an absent value means in our tables).
 */
export function jsonParam(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}
