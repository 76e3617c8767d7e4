import fc from 'fast-check';

// fast-check arbitraries from the JSON Schemas of the OpenAPI document: values that fit the
// schema (most of the time), values that break it (wrong types, bounds, missing and extra fields),
// and hostile values (unicode, huge strings, deep JSON).

type Schema = Record<string, any>;

export interface SchemaContext {
  /** components.schemas, for $ref. */
  components: Record<string, Schema>;
  /** Real ids to use where a uuid (or any id) is expected, so lookups hit existing rows. */
  ids: string[];
}

const resolve = (schema: Schema, ctx: SchemaContext): Schema => {
  let s = schema;
  for (let i = 0; i < 10 && typeof s?.$ref === 'string'; i++) {
    s = ctx.components[String(s.$ref).replace('#/components/schemas/', '')] ?? {};
  }
  return s ?? {};
};

/** Strings nobody plans for: control characters, RTL, emoji, NUL, SQL and JSON fragments. */
export const hostileString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u202e\u0041',
    '💥🧨',
    "'; drop table orders; --",
    '{"$gt":""}',
    '../../etc/passwd',
    '%00',
    'null',
    '-1',
    '1e309',
    '\ud800',
  ),
  fc.integer({ min: 256, max: 70_000 }).map((n) => 'x'.repeat(n)),
);

/** JSON nested `depth` levels deep. */
const deep = fc.integer({ min: 20, max: 2_000 }).map((depth) => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
});

export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: hostileString },
  { weight: 1, arbitrary: deep },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      -1,
      0,
      2 ** 31,
      2 ** 53 + 1,
      -(2 ** 63),
      1.5,
      Number.MAX_VALUE,
      true,
      null,
      [],
      {},
    ),
  },
);

function stringFor(s: Schema, ctx: SchemaContext): fc.Arbitrary<string> {
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as string[]));
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 30, 60);
  switch (s.format) {
    case 'uuid':
      return ctx.ids.length > 0
        ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ctx.ids) }, { weight: 1, arbitrary: fc.uuid() })
        : fc.uuid();
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl();
  }
  if (typeof s.pattern === 'string') {
    if (s.pattern === '^[A-Z]{3}$') return fc.constantFrom('USD', 'EUR', 'GBP', 'ABC');
    if (s.pattern === '^[0-9]{4}$')
      return fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, '0'));
    try {
      // Lengths are not filtered here (a filter that never passes would spin forever): a string
      // out of bounds is just one more invalid input.
      return fc.stringMatching(new RegExp(s.pattern));
    } catch {
      /* fall through */
    }
  }
  const fitting = ctx.ids.filter((v) => v.length >= min && v.length <= (s.maxLength ?? 1e9));
  const ids = fitting.length > 0 ? [fc.constantFrom(...fitting)] : [];
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength: min, maxLength: Math.max(min, max) }) },
    ...ids.map((arbitrary) => ({ weight: 1, arbitrary })),
  );
}

function numberFor(s: Schema): fc.Arbitrary<number> {
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1_000);
  const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1_000_000);
  const small = fc.integer({
    min: Math.max(min, -1_000),
    max: Math.max(Math.min(max, 1_000), Math.max(min, -1_000)),
  });
  const range = fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) });
  return s.type === 'integer'
    ? fc.oneof(small, range)
    : fc.oneof(small, fc.double({ min, max, noNaN: true, noDefaultInfinity: true }));
}

/** A value that fits `schema` (best effort: patterns and cross-field rules are not modelled). */
export function valid(schema: Schema, ctx: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, ctx);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const alternatives = s.anyOf ?? s.oneOf;
  if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((a: Schema) => valid(a, ctx, depth)));
  if (Array.isArray(s.allOf)) {
    const merged = s.allOf
      .map((a: Schema) => resolve(a, ctx))
      .reduce(
        (acc: Schema, a: Schema) => ({
          ...acc,
          ...a,
          properties: { ...acc.properties, ...a.properties },
          required: [...(acc.required ?? []), ...(a.required ?? [])],
        }),
        {},
      );
    return valid(merged, ctx, depth);
  }
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (depth > 4) return fc.constant(null);
  switch (type) {
    case 'string':
      return stringFor(s, ctx);
    case 'integer':
    case 'number':
      return numberFor(s);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = s.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(s.maxItems ?? 3, 4));
      return fc.array(valid(s.items ?? {}, ctx, depth + 1), { minLength, maxLength });
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const required = new Set<string>(s.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = valid(v, ctx, depth + 1);
      const record = fc.record(model, { requiredKeys: [...required].filter((k) => k in props) });
      if (Object.keys(props).length === 0 && s.additionalProperties !== false)
        return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
      return record;
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * Integers at the edges where storage and arithmetic break: int4, doubles' exact range, negative,
 * zero and a double far past any bound. Every integer field of every operation gets them.
 */
export const BOUNDARY_INTEGERS = [2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, 2 ** 53 + 1, -1, 0, 1e308] as const;
export const boundaryInteger = fc.constantFrom(...BOUNDARY_INTEGERS);

const isNumeric = (p: Schema, ctx: SchemaContext): boolean => {
  const r = resolve(p, ctx);
  if (r.type === 'integer' || r.type === 'number') return true;
  return ((r.anyOf ?? r.oneOf ?? []) as Schema[]).some((x) => isNumeric(x, ctx));
};

/** Paths (keys, `0` for an array's first item) to every integer or number field within `schema`. */
function numericPaths(schema: Schema, ctx: SchemaContext, depth = 0): (string | number)[][] {
  const s = resolve(schema, ctx);
  if (depth > 4) return [];
  if (isNumeric(s, ctx)) return [[]];
  if (s.type === 'array' && s.items) return numericPaths(s.items, ctx, depth + 1).map((p) => [0, ...p]);
  if (s.type === 'object' && s.properties)
    return Object.entries(s.properties as Record<string, Schema>).flatMap(([k, p]) =>
      numericPaths(p, ctx, depth + 1).map((path) => [k, ...path]),
    );
  return [];
}

/** `value` with the field at `path` set to `v`, where the generated value has that field's parent. */
function setAt(value: unknown, path: (string | number)[], v: unknown): unknown {
  if (path.length === 0) return v;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(value)) {
    const items = value.length > 0 ? [...value] : [{}];
    items[0] = setAt(items[0], rest, v);
    return items;
  }
  if (value === null || typeof value !== 'object') return value;
  return {
    ...(value as Record<string, unknown>),
    [head]: setAt((value as Record<string, unknown>)[head], rest, v),
  };
}

/** A valid value with one numeric field (at any depth) set to a boundary integer. */
export function withBoundaryInteger(schema: Schema, ctx: SchemaContext): fc.Arbitrary<unknown> | undefined {
  const paths = numericPaths(schema, ctx);
  if (paths.length === 0) return undefined;
  return fc
    .tuple(valid(schema, ctx), fc.constantFrom(...paths), boundaryInteger)
    .map(([value, path, v]) => setAt(value, path, v));
}

/** A value that probably breaks `schema`: another type, out of bounds, missing or extra fields. */
export function invalid(schema: Schema, ctx: SchemaContext): fc.Arbitrary<unknown> {
  const s = resolve(schema, ctx);
  const mutations: fc.Arbitrary<unknown>[] = [anyJson];
  const boundary = withBoundaryInteger(s, ctx);
  if (boundary) mutations.push(boundary, boundary);
  if (s.type === 'object' && s.properties) {
    const keys = Object.keys(s.properties);
    // A valid object with one field removed, replaced by junk, or an extra field added.
    mutations.push(
      fc
        .tuple(
          valid(s, ctx),
          fc.constantFrom(...(keys.length > 0 ? keys : ['x'])),
          anyJson,
          fc.integer({ min: 0, max: 2 }),
        )
        .map(([obj, key, junk, how]) => {
          const o = { ...(obj as Record<string, unknown>) };
          if (how === 0) delete o[key];
          else if (how === 1) o[key] = junk;
          else o[`extra_${key}`] = junk;
          return o;
        }),
    );
    // One field at its bounds and just beyond them.
    const bounded = keys.filter((k) => {
      const p = resolve(s.properties[k], ctx);
      return (
        p.maxLength !== undefined ||
        p.maximum !== undefined ||
        p.minimum !== undefined ||
        p.maxItems !== undefined
      );
    });
    if (bounded.length > 0) {
      mutations.push(
        fc.tuple(valid(s, ctx), fc.constantFrom(...bounded), fc.boolean()).map(([obj, key, over]) => {
          const p = resolve(s.properties[key], ctx);
          let v: unknown;
          if (p.maxLength !== undefined) v = 'y'.repeat(p.maxLength + (over ? 1 : 0));
          else if (p.maxItems !== undefined)
            v = Array.from({ length: p.maxItems + (over ? 1 : 0) }, () => ({}));
          else if (p.maximum !== undefined) v = p.maximum + (over ? 1 : 0);
          else v = p.minimum - (over ? 1 : 0);
          return { ...(obj as Record<string, unknown>), [key]: v };
        }),
      );
    }
  }
  return fc.oneof(...mutations);
}
