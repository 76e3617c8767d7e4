import type { Scope } from '../core/scopes.js';

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
  'x-required-scope'?: Scope | null;
}

export interface OpenApiDocumentLike {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  annotations: ToolAnnotations;
  /** Where the tool call goes. */
  method: string;
  /** The OpenAPI path template, e.g. `/api/v1/carts/{id}/items`. */
  path: string;
  scope: Scope | null;
  pathParams: string[];
  queryParams: string[];
  hasBody: boolean;
  write: boolean;
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export const IDEMPOTENCY_KEY_ARGUMENT = 'idempotencyKey';
export const BODY_ARGUMENT = 'body';

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

/** Repeating the same call has no further effect: reads, previews, PUT and DELETE. */
function isIdempotent(method: string, operationId: string): boolean {
  return isReadOnly(method, operationId) || method === 'PUT' || method === 'DELETE';
}

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
  return out;
}

export function toolsFromOpenApi(doc: OpenApiDocumentLike): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const lower of HTTP_METHODS) {
      const op = operations[lower];
      if (!op?.operationId) continue;
      const method = lower.toUpperCase();
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      const pathParams: string[] = [];
      const queryParams: string[] = [];
      for (const p of op.parameters ?? []) {
        if (p.in !== 'path' && p.in !== 'query') continue;
        properties[p.name] = inlineRefs(
          { ...(p.schema ?? { type: 'string' }), ...(p.description ? { description: p.description } : {}) },
          doc,
        );
        if (p.in === 'path') pathParams.push(p.name);
        else queryParams.push(p.name);
        if (p.required || p.in === 'path') required.push(p.name);
      }
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      if (bodySchema) {
        properties[BODY_ARGUMENT] = {
          ...(inlineRefs(bodySchema, doc) as JsonSchema),
          description: 'The JSON request body.',
        };
        if (op.requestBody?.required) required.push(BODY_ARGUMENT);
      }
      const write = WRITE_METHODS.has(method);
      if (write) {
        properties[IDEMPOTENCY_KEY_ARGUMENT] = {
          type: 'string',
          minLength: 1,
          maxLength: 255,
          description:
            'Sent as the Idempotency-Key header: a retry with the same key and arguments within 24 h returns ' +
            'the first result without running the operation again. Use a fresh random value per intended change.',
        };
      }
      const summary = op.summary ?? op.operationId;
      const scope = op['x-required-scope'] ?? null;
      tools.push({
        name: op.operationId,
        title: summary,
        description:
          `${summary}. ${op.description ?? ''}`.trim() +
          `\n\nREST: ${method} ${path}` +
          (scope ? `; needs the "${scope}" scope.` : '; no authentication.'),
        inputSchema: {
          type: 'object',
          properties,
          ...(required.length ? { required } : {}),
          additionalProperties: false,
        },
        annotations: {
          title: summary,
          readOnlyHint: isReadOnly(method, op.operationId),
          destructiveHint: isDestructive(method, op.operationId),
          idempotentHint: isIdempotent(method, op.operationId),
          openWorldHint: false,
        },
        method,
        path,
        scope,
        pathParams,
        queryParams,
        hasBody: Boolean(bodySchema),
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
