import { type TUnsafe, Type } from 'typebox';

/**
 * A closed set of strings as `{ type: 'string', enum: [...] }`: one clear validation error
 * ("must be one of ...") instead of one per literal, and a plain enum in OpenAPI.
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}
