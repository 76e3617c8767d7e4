/**
 * The output schemas of the tools, from the OpenAPI document's success responses. Two forms:
 * - whole: what the route answers, every field, the document's shared schemas as local `$defs`;
 *   each is a resource (`commerce://tools/{name}/output-schema`) that resources/read returns.
 * - listed: the top level of the same schema, what tools/list carries: the envelope's members
 *   and the type of `data` (of its items for a list). The whole schemas of the commerce key's
 *   tools are 340 KB, five times the listing's budget, and even the names of the fields `data`
 *   always has would be 16 KB more; the instructions say where the whole schema is.
 * A result validates against both: the listed form only leaves out constraints of the whole.
 */

export type JsonSchema = Record<string, unknown>;
type ObjectSchema = JsonSchema & { type: 'object' };

export interface OpenApiResponses {
  [status: string]: { content?: Record<string, { schema?: JsonSchema }> };
}

interface ComponentsLike {
  components?: { schemas?: Record<string, JsonSchema> };
}

export const OUTPUT_SCHEMA_URI_TEMPLATE = 'commerce://tools/{name}/output-schema';
export const outputSchemaUri = (tool: string) => OUTPUT_SCHEMA_URI_TEMPLATE.replace('{name}', tool);
/** The tool named by an output schema URI, or undefined for any other URI. */
export function toolOfOutputSchemaUri(uri: string): string | undefined {
  return /^commerce:\/\/tools\/([A-Za-z0-9_]+)\/output-schema$/.exec(uri)?.[1];
}

const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;
/** Keys of the REST reference that say nothing about the shape of a result. */
const REFERENCE_ONLY = new Set(['examples', 'example', '$id']);

/** A 204 answers nothing: the tool result is `{ data: null }`. */
const NO_CONTENT: ObjectSchema = {
  type: 'object',
  properties: { data: { type: 'null' } },
  required: ['data'],
};

/** The JSON bodies of the 2xx responses, in status order, each once. */
function successSchemas(responses: OpenApiResponses | undefined): JsonSchema[] {
  const seen = new Set<string>();
  const out: JsonSchema[] = [];
  for (const [status, response] of Object.entries(responses ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    const schema = /^2\d\d$/.test(status) ? response.content?.['application/json']?.schema : undefined;
    if (!schema) continue;
    const key = JSON.stringify(schema);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(schema);
  }
  return out;
}

/** A copy with the document's component references made local (`#/$defs/...`), collecting them. */
function localized(schema: unknown, doc: ComponentsLike, defs: Record<string, JsonSchema>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => localized(s, doc, defs));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (REFERENCE_ONLY.has(key)) continue;
    const name = key === '$ref' && typeof value === 'string' ? COMPONENT_REF.exec(value)?.[1] : undefined;
    if (name === undefined) {
      out[key] = localized(value, doc, defs);
      continue;
    }
    out.$ref = `#/$defs/${name}`;
    if (!(name in defs)) {
      defs[name] = {}; // placed first: a schema that refers to itself stops here
      defs[name] = localized(doc.components?.schemas?.[name] ?? {}, doc, defs) as JsonSchema;
    }
  }
  return out;
}

/** What a tool call's structuredContent is: the body, or `{ data: body }` when it is no object. */
function asToolResult(schema: JsonSchema): ObjectSchema {
  return schema.type === 'object'
    ? (schema as ObjectSchema)
    : { type: 'object', properties: { data: schema }, required: ['data'] };
}

/** The whole output schema of an operation: its success response(s), standing alone. */
export function wholeOutputSchema(
  responses: OpenApiResponses | undefined,
  doc: ComponentsLike,
): ObjectSchema {
  const successes = successSchemas(responses);
  if (successes.length === 0) return NO_CONTENT;
  const defs: Record<string, JsonSchema> = {};
  const bodies = successes.map((s) => asToolResult(resolved(localized(s, doc, defs) as JsonSchema, defs)));
  const schema: ObjectSchema =
    bodies.length === 1 ? (bodies[0] as ObjectSchema) : { type: 'object', anyOf: bodies };
  return Object.keys(defs).length > 0 ? { ...schema, $defs: defs } : schema;
}

/** A schema whose top is a local reference, as the schema it names (the top must say its type). */
function resolved(schema: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  const name = typeof schema.$ref === 'string' ? schema.$ref.replace('#/$defs/', '') : undefined;
  return name !== undefined && defs[name] ? resolved(defs[name], defs) : schema;
}

/**
 * The top level of a schema: its type, and for a list the type of its items; anyOf and oneOf
 * branch by branch. The fields are left to the whole schema (see the file's comment).
 */
function topLevel(schema: JsonSchema, defs: Record<string, JsonSchema>, depth: number): JsonSchema {
  const s = resolved(schema, defs);
  for (const key of ['anyOf', 'oneOf'] as const)
    if (Array.isArray(s[key]))
      return branches(
        key,
        (s[key] as JsonSchema[]).map((b) => topLevel(b, defs, depth)),
      );
  if (s.type === undefined) return {};
  if (s.type === 'array' && s.items && depth > 0)
    return { type: s.type, items: topLevel(s.items as JsonSchema, defs, depth - 1) };
  return { type: s.type };
}

/** Branches that differ only below the top level are one at the top level. */
function branches(key: 'anyOf' | 'oneOf', shapes: JsonSchema[]): JsonSchema {
  const distinct = [...new Map(shapes.map((shape) => [JSON.stringify(shape), shape])).values()];
  return distinct.length === 1 ? (distinct[0] as JsonSchema) : { [key]: distinct };
}

/** Envelope members the instructions state for every tool: `nextActions` always, `meta` when paged. */
const STATED_MEMBERS = new Set(['nextActions', 'meta']);

/**
 * The listed output schema: the top level of `data`, and the envelope's other members of this
 * tool (`facets` of a search); those every envelope has are stated once, in the instructions.
 */
export function listedOutputSchema(whole: ObjectSchema): ObjectSchema {
  const defs = (whole.$defs ?? {}) as Record<string, JsonSchema>;
  if (Array.isArray(whole.anyOf)) {
    const shapes = (whole.anyOf as JsonSchema[]).map((b) =>
      listedOutputSchema({ ...b, type: 'object', $defs: defs }),
    );
    return { type: 'object', ...branches('anyOf', shapes) };
  }
  const properties = (whole.properties ?? {}) as Record<string, JsonSchema>;
  return {
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(properties)
        .filter(([name]) => !STATED_MEMBERS.has(name))
        .map(([name, schema]) => [name, topLevel(schema, defs, name === 'data' ? 1 : 0)]),
    ),
  };
}
