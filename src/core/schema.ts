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

/** The largest value a PostgreSQL `integer` (int4) column holds. */
export const INT4_MAX = 2_147_483_647;

/**
 * An integer input bound by what stores it: an int4 column by default (`maximum` INT4_MAX,
 * `minimum` 0), or a tighter business bound. Every integer a request carries has both bounds,
 * so a value the column cannot hold is a 400 naming the field, never a 500 from the database
 * (`test/platform/schema-bounds.test.ts` walks the served document for any that lacks one).
 */
export function Int4(
  options: { minimum?: number; maximum?: number; description?: string; default?: number } = {},
) {
  const { minimum = 0, maximum = INT4_MAX, ...rest } = options;
  if (maximum > INT4_MAX || minimum < -INT4_MAX - 1) throw new Error('Int4 bounds exceed an int4 column');
  return Type.Integer({ minimum, maximum, ...rest });
}

type JsonSchema = Record<string, unknown>;

/**
 * A part of a rule constrains only the fields it names; the object's own schema closes it
 * (`additionalProperties: false`). Said explicitly: validators that default unevaluated
 * properties to false (Redocly's example check, which `client:generate` runs) read the part alone.
 */
const part = (schema: JsonSchema): JsonSchema => ({ ...schema, additionalProperties: true });

/**
 * A requirement that holds for some values of a discriminator (`discountType`, `kind`,
 * `chargeModel`): when `field` is one of `values` the object must also match `then` (and
 * `otherwise` when it is not). In the document, so an agent reads the rule instead of guessing it;
 * Ajv enforces it, so the server refuses what the document forbids (400 naming the field).
 */
export function When(field: string, values: readonly string[], then: JsonSchema, otherwise?: JsonSchema) {
  return IfThen(part({ properties: { [field]: { enum: [...values] } }, required: [field] }), then, otherwise);
}

/** Part of a rule: constraints on the named fields only (e.g. `{ tiers: { maxItems: 1 } }`). */
export function Fields(properties: Record<string, JsonSchema>): JsonSchema {
  return part({ properties });
}

/** JSON Schema `if`/`then`/`else`: `When` on any condition. */
export function IfThen(condition: JsonSchema, then: JsonSchema, otherwise?: JsonSchema): JsonSchema {
  return { if: condition, then, ...(otherwise ? { else: otherwise } : {}) };
}

/** Part of a `When`: these fields are required, each of the given JSON type (not null). */
export function Present(fields: Record<string, string>): JsonSchema {
  return part({
    required: Object.keys(fields),
    properties: Object.fromEntries(Object.entries(fields).map(([f, type]) => [f, { type }])),
  });
}

/** Part of a `When`: these fields are required (of whatever type their own schema says). */
export function Required(...fields: string[]): JsonSchema {
  return part({ required: fields, properties: Object.fromEntries(fields.map((f) => [f, {}])) });
}

/** Part of a `When`: these fields may be left out or null, nothing else. */
export function NullOrAbsent(...fields: string[]): JsonSchema {
  return part({ properties: Object.fromEntries(fields.map((f) => [f, { type: 'null' }])) });
}

/** Part of a `When`: these fields must be left out (400 `forbidden` naming each one sent). */
export function Absent(...fields: string[]): JsonSchema {
  return part({ properties: Object.fromEntries(fields.map((f) => [f, false])) });
}
