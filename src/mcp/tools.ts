import { LIST_PAGING, ruleReference, SHARED_RULES } from '../core/agent-guide.js';
import type { Scope } from '../core/scopes.js';
import { EVENT_TYPES } from '../events/event-types.js';
import { listedOutputSchema, type OpenApiResponses, wholeOutputSchema } from './output-schemas.js';

/**
 * Turns the OpenAPI document into MCP tool definitions: one tool per operation, so a new public
 * route becomes a tool without code here. Pure: it reads only the document.
 */

type JsonSchema = Record<string, unknown>;

interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: OpenApiResponses;
  'x-required-scope'?: Scope | null;
}

export interface OpenApiDocumentLike {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** MCP tool hints; a hint equal to the protocol's default (false, but destructive true) is left out. */
export interface ToolAnnotations {
  readOnlyHint?: true;
  destructiveHint?: boolean;
  idempotentHint?: true;
  openWorldHint: false;
}

export interface ToolDefinition {
  name: string;
  /**
   * Not set: it would only repeat the operation's summary, which the name and the description
   * already say, and tools/list must stay under 61 KB for the commerce key.
   */
  title?: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  /** The top level of the result (tools/list): the envelope and the shape of `data`. */
  outputSchema: JsonSchema & { type: 'object' };
  /** The whole schema of the result, the route's response (the tool's output schema resource). */
  wholeOutputSchema: JsonSchema & { type: 'object' };
  annotations: ToolAnnotations;
  /** Where the tool call goes. */
  method: string;
  /** The OpenAPI path template, e.g. `/api/v1/carts/{id}/items`. */
  path: string;
  scope: Scope | null;
  pathParams: string[];
  queryParams: string[];
  /** Body fields by argument name (the field's own name, or `body_<name>` on a collision). */
  bodyFields: Map<string, string>;
  hasBody: boolean;
  write: boolean;
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export const IDEMPOTENCY_KEY_ARGUMENT = 'idempotencyKey';

/**
 * Operations that are not tools: the two return the whole OpenAPI document (over 1 MB), and
 * exportAcpFeed streams a whole catalog as a JSON Lines file (no envelope, any size), which a tool
 * result would hold in memory at once.
 */
export const NOT_TOOLS = new Set(['getOpenApiDocument', 'getAgentToolsDocument', 'exportAcpFeed']);

/** Reads and previews: computing a preview changes nothing. */
function isReadOnly(method: string, operationId: string): boolean {
  return method === 'GET' || /^preview[A-Z]/.test(operationId);
}

/** Operations that end or remove something: DELETE, and cancel/revoke/void style POSTs. */
function isDestructive(method: string, operationId: string): boolean {
  return (
    method === 'DELETE' ||
    // completePaymentSession force-marks money as received: as hard to take back as a cancel.
    /^(cancel|revoke|delete|void|markBillingInvoiceUncollectible|completePaymentSession$)/.test(operationId)
  );
}

/** Repeating the same write has no further effect: PUT and DELETE. */
function isIdempotent(method: string): boolean {
  return method === 'PUT' || method === 'DELETE';
}

function annotationsOf(method: string, operationId: string): ToolAnnotations {
  const readOnly = isReadOnly(method, operationId);
  return {
    // Destructive is the protocol's default for a tool that writes, and means nothing for a read.
    ...(readOnly ? { readOnlyHint: true } : { destructiveHint: isDestructive(method, operationId) }),
    // The protocol reads idempotentHint only for a tool that writes (a read is idempotent anyway).
    ...(!readOnly && isIdempotent(method) ? { idempotentHint: true } : {}),
    openWorldHint: false,
  };
}

function matchesEmpty(pattern: string): boolean {
  try {
    return new RegExp(pattern, 'u').test('');
  } catch {
    return true; // not a pattern we can read: keep minLength
  }
}

/**
 * The same constraint said once: an `enum` of strings needs no `type: string`, and a `pattern`
 * that cannot match the empty string needs no `minLength: 1`.
 */
function withoutImplied(schema: Record<string, unknown>): Record<string, unknown> {
  if (isEventTypeEnum(schema.enum)) {
    const { enum: _listed, ...rest } = schema;
    return { ...rest, type: 'string' };
  }
  const { type, minLength, ...rest } = schema;
  const enumOfStrings = Array.isArray(rest.enum) && rest.enum.every((v) => typeof v === 'string');
  const nonEmptyPattern = typeof rest.pattern === 'string' && !matchesEmpty(rest.pattern);
  return {
    ...(type !== undefined && !(type === 'string' && enumOfStrings) ? { type } : {}),
    ...(minLength !== undefined && !(minLength === 1 && nonEmptyPattern) ? { minLength } : {}),
    ...rest,
  };
}

/**
 * The webhook event types (every type and `*`), an enum two tools would repeat, are listed once
 * in the instructions (`eventTypesLine`); the argument keeps its type and points there.
 */
function isEventTypeEnum(values: unknown): boolean {
  return (
    Array.isArray(values) && values.includes('*') && Object.keys(EVENT_TYPES).every((t) => values.includes(t))
  );
}

/** The instructions' line listing the event types the webhook tools take. */
export const eventTypesLine = () =>
  `Webhook event types (\`events\` of createWebhook and updateWebhook): ${Object.keys(EVENT_TYPES).join(', ')}, or * for every type.`;

/** Inlines `#/components/schemas/...` references, so each tool's input schema stands alone. */
function inlineRefs(schema: unknown, doc: OpenApiDocumentLike, depth = 0): unknown {
  if (depth > 20 || schema === null || typeof schema !== 'object') return schema;
  if (Array.isArray(schema)) return schema.map((s) => inlineRefs(s, doc, depth + 1));
  const record = schema as Record<string, unknown>;
  const ref = record.$ref;
  if (typeof ref === 'string') {
    const name = ref.replace(/^#\/components\/schemas\//, '');
    const target = doc.components?.schemas?.[name];
    if (target) return inlineRefs(target, doc, depth + 1);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    // Examples belong to the REST reference; they only make a tool listing longer.
    if (key === 'examples' || key === 'example' || key === '$id') continue;
    out[key] = inlineRefs(value, doc, depth + 1);
  }
  return withoutImplied(out);
}

/** The instructions' “Idempotency” rule names this argument, its length and what it does. */
const IDEMPOTENCY_KEY_SCHEMA = { type: 'string' };

/** What “Paging” (named by the tool's description) says of `limit` and `cursor`. */
const PAGED_ARGUMENTS: Record<string, JsonSchema> = {
  limit: { type: 'integer' },
  cursor: { type: 'string' },
};

/**
 * Argument schemas a tool's listing states elsewhere, left out of it (tools/list stays within its
 * budget): a paged list's `limit`/`cursor` (the “Paging” rule), and an `id` described only as
 * "<Resource> id." when the tool's name already names the resource (`Subscription id.` of
 * getSubscription; `Payment session id.` of createRefund stays).
 */
function withoutStatedElsewhere(
  operationId: string,
  description: string,
  properties: Record<string, unknown>,
) {
  if (description.includes(LIST_PAGING.text))
    for (const [name, schema] of Object.entries(PAGED_ARGUMENTS))
      if (name in properties) properties[name] = schema;
  const id = properties.id as JsonSchema | undefined;
  const resource =
    typeof id?.description === 'string' ? /^([A-Za-z ]+) id\.$/.exec(id.description)?.[1] : undefined;
  if (id && resource && operationId.toLowerCase().includes(resource.replaceAll(' ', '').toLowerCase())) {
    const { description: _said, ...rest } = id;
    properties.id = rest;
  }
}

/**
 * What the instructions state for every tool (strict arguments, idempotency keys), or what only
 * an HTTP client can use (response caching), is left out of each tool's description.
 */
const STATED_ONCE = [
  / ?Unknown (fields|query parameters) are rejected[^.]*\./g,
  / ?Send an Idempotency-Key to retry safely\./g,
  / ?Cacheable (for )?60 s(econds)?\./g,
  /; cacheable 60 s\./g,
];

/** Where a rule shared by several tools is stated once, a description points to it. */
function withSharedRulesNamed(text: string): string {
  let out = text;
  for (const phrase of STATED_ONCE) out = out.replace(phrase, (m) => (m.startsWith(';') ? '.' : ''));
  for (const rule of SHARED_RULES) out = out.split(rule.text).join(ruleReference(rule));
  // References in a row read as one: “See “A”, “B”.”
  return out.replaceAll('”. See “', '”, “');
}

/** The same for every description inside a schema (arguments and their fields). */
function withSharedRulesInSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withSharedRulesInSchema);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [
      k,
      k === 'description' && typeof v === 'string' ? withSharedRulesNamed(v) : withSharedRulesInSchema(v),
    ]),
  );
}

/** The arguments of one operation: path, query and body fields side by side, at the top level. */
function toolArguments(op: OpenApiOperation, doc: OpenApiDocumentLike, write: boolean) {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const pathParams: string[] = [];
  const queryParams: string[] = [];
  const bodyFields = new Map<string, string>();
  for (const p of op.parameters ?? []) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    properties[p.name] = inlineRefs(
      { ...(p.schema ?? { type: 'string' }), ...(p.description ? { description: p.description } : {}) },
      doc,
    );
    (p.in === 'path' ? pathParams : queryParams).push(p.name);
    if (p.required || p.in === 'path') required.push(p.name);
  }
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const body = bodySchema ? (inlineRefs(bodySchema, doc) as JsonSchema) : undefined;
  const bodyRequired = new Set((body?.required as string[] | undefined) ?? []);
  for (const [field, schema] of Object.entries((body?.properties ?? {}) as Record<string, unknown>)) {
    // The rare body field named like a path or query parameter keeps its place with a prefix.
    const name = field in properties || field === IDEMPOTENCY_KEY_ARGUMENT ? `body_${field}` : field;
    properties[name] = schema;
    bodyFields.set(name, field);
    if (bodyRequired.has(field)) required.push(name);
  }
  if (write) properties[IDEMPOTENCY_KEY_ARGUMENT] = IDEMPOTENCY_KEY_SCHEMA;
  withoutStatedElsewhere(op.operationId ?? '', op.description ?? '', properties);
  return {
    inputSchema: {
      type: 'object' as const,
      properties: withSharedRulesInSchema(properties) as Record<string, unknown>,
      ...(required.length ? { required } : {}),
      additionalProperties: false,
    },
    pathParams,
    queryParams,
    bodyFields,
    hasBody: Boolean(body),
  };
}

function outputSchemas(op: OpenApiOperation, doc: OpenApiDocumentLike) {
  const whole = wholeOutputSchema(op.responses, doc);
  return { outputSchema: listedOutputSchema(whole), wholeOutputSchema: whole };
}

export function toolsFromOpenApi(doc: OpenApiDocumentLike): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const lower of HTTP_METHODS) {
      const op = operations[lower];
      if (!op?.operationId || NOT_TOOLS.has(op.operationId)) continue;
      const method = lower.toUpperCase();
      const write = WRITE_METHODS.has(method);
      tools.push({
        name: op.operationId,
        description: withSharedRulesNamed(op.description ?? op.summary ?? op.operationId),
        ...toolArguments(op, doc, write && !isReadOnly(method, op.operationId)),
        ...outputSchemas(op, doc),
        annotations: annotationsOf(method, op.operationId),
        method,
        path,
        scope: op['x-required-scope'] ?? null,
        write,
      });
    }
  }
  return tools;
}

/** The URL a tool call requests: path parameters substituted (encoded), query parameters appended. */
export function toolUrl(tool: ToolDefinition, args: Record<string, unknown>): string {
  let url = tool.path;
  for (const name of tool.pathParams) {
    url = url.replace(`{${name}}`, encodeURIComponent(String(args[name] ?? '')));
  }
  const query = new URLSearchParams();
  for (const name of tool.queryParams) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) query.append(name, String(v));
    else query.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  const qs = query.toString();
  return qs ? `${url}?${qs}` : url;
}

/** Path segments an argument cannot be: a URL resolves `.` and `..` away, and '' drops the segment. */
const DOT_SEGMENTS = new Set(['', '.', '..']);
const isParam = (segment: string) => segment.startsWith('{');

/**
 * A path argument that would make the call run an operation other than the tool's own, with why;
 * undefined when there is none. `.`, `..` and '' are resolved away (getAccount {id: "."} ran GET
 * /accounts, listAccountSubscriptions {id: ".."} GET /subscriptions); a value equal to a fixed
 * segment of another route of the same method at that place is routed there (getWebhook
 * {id: "event-types"} would be GET /webhooks/event-types).
 */
export function misroutingArgument(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  tools: readonly ToolDefinition[],
): { argument: string; message: string } | undefined {
  const template = tool.path.split('/');
  const concrete = template.map((segment) =>
    isParam(segment) ? String(args[segment.slice(1, -1)] ?? '') : segment,
  );
  for (const [i, segment] of template.entries()) {
    if (isParam(segment) && DOT_SEGMENTS.has(concrete[i] as string))
      return {
        argument: segment.slice(1, -1),
        message: `${segment.slice(1, -1)} must be an id: an empty, "." or ".." path segment addresses another operation`,
      };
  }
  for (const other of tools) {
    if (other === tool || other.method !== tool.method) continue;
    const route = other.path.split('/');
    if (route.length !== concrete.length || !route.every((s, i) => isParam(s) || s === concrete[i])) continue;
    const i = route.findIndex((s, j) => !isParam(s) && isParam(template[j] as string));
    if (i < 0) continue;
    const argument = (template[i] as string).slice(1, -1);
    return {
      argument,
      message: `${argument} "${concrete[i]}" names ${other.name}, not an id for ${tool.name}`,
    };
  }
  return undefined;
}
