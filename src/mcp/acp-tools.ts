import { randomUUID } from 'node:crypto';
import { type CallToolResult, ProtocolError } from '@modelcontextprotocol/server';
import type { Scope } from '../core/scopes.js';
import { API_PREFIX } from '../http/envelope.js';
import { compileArgumentValidator, validationDetails } from '../http/validation.js';
import type { ToolAnnotations } from './tools.js';

/**
 * The ACP MCP binding (agentic-commerce-protocol docs/mcp-binding.md): the five checkout tools,
 * named as the binding names them, with its arguments `{ meta, id, payload }`. A call runs the
 * ACP REST route (src/modules/checkout-sessions/acp/routes/) with `meta` as its headers and
 * `payload` as its body, so the operations, idempotency and ACP errors are the REST binding's.
 * A result is the ACP CheckoutSession; an ACP error is a JSON-RPC error -32000 with the ACP
 * Error in `data`, and malformed arguments -32602 before anything runs.
 */

/** What a tool call sends: the route's answer (status, headers, parsed body). */
export type AcpSend = (
  method: 'GET' | 'POST',
  url: string,
  payload: unknown,
  headers: Record<string, string>,
) => Promise<{ status: number; headers: Record<string, unknown>; body: unknown }>;

export interface AcpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: 'object' };
  annotations: ToolAnnotations;
  scope: Scope;
  method: 'GET' | 'POST';
  /** Under /api/v1; `{id}` is the `id` argument. */
  path: string;
}

/** The ACP request headers; the instructions say so, with the `api_version` to send. */
const META = {
  type: 'object',
  properties: {
    api_version: { type: 'string' },
    idempotency_key: { type: 'string' },
    request_id: { type: 'string' },
    signature: { type: 'string' },
    timestamp: { type: 'string' },
  },
  required: ['api_version'],
};

// Not empty, `.` or `..`: a path segment the URL would resolve away (another route's).
const ID = { type: 'string', pattern: '^(?!\\.\\.?$).', maxLength: 255, description: 'Session id.' };

/** The payload's full schema is the REST body's (checked there, refusals name the JSONPath). */
const payload = (description: string) => ({ type: 'object', description });

function tool(
  name: string,
  method: 'GET' | 'POST',
  path: string,
  description: string,
  payloadSchema: { schema: Record<string, unknown>; required: boolean } | null,
  annotations: ToolAnnotations,
): AcpTool {
  const withId = path.includes('{id}');
  const required = ['meta', ...(withId ? ['id'] : []), ...(payloadSchema?.required ? ['payload'] : [])];
  return {
    name,
    description,
    inputSchema: {
      type: 'object',
      properties: {
        meta: META,
        ...(withId ? { id: ID } : {}),
        ...(payloadSchema ? { payload: payloadSchema.schema } : {}),
      },
      required,
      additionalProperties: false,
    },
    annotations,
    scope: method === 'GET' ? 'read' : 'commerce',
    method,
    path,
  };
}

const write = { destructiveHint: false, openWorldHint: false } as const;

export const ACP_TOOLS: readonly AcpTool[] = [
  tool(
    'create_checkout_session',
    'POST',
    '/checkout_sessions',
    'ACP: create a checkout session (result: the CheckoutSession; messages[] say what it lacks).',
    {
      schema: payload(
        'ACP CheckoutSessionCreateRequest: line_items [{ id, quantity }], currency, buyer, ' +
          'fulfillment_details, discounts { codes }, capabilities.',
      ),
      required: true,
    },
    write,
  ),
  tool(
    'get_checkout_session',
    'GET',
    '/checkout_sessions/{id}',
    'ACP: the checkout session’s current state.',
    null,
    { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  ),
  tool(
    'update_checkout_session',
    'POST',
    '/checkout_sessions/{id}',
    'ACP: change items, buyer, fulfillment details, the fulfillment option or discount codes.',
    {
      schema: payload(
        'ACP CheckoutSessionUpdateRequest: line_items, buyer, fulfillment_details, ' +
          'selected_fulfillment_options [{ type, option_id, item_ids }], discounts { codes }.',
      ),
      required: true,
    },
    write,
  ),
  tool(
    'complete_checkout_session',
    'POST',
    '/checkout_sessions/{id}/complete',
    'ACP: pay with a delegated token and place the order.',
    {
      schema: payload(
        'ACP CheckoutSessionCompleteRequest: payment_data { handler_id: "acp_delegated_card", instrument: ' +
          '{ type: "card", credential: { type: "spt", token } }, billing_address }, buyer.',
      ),
      required: true,
    },
    { destructiveHint: true, openWorldHint: false },
  ),
  tool(
    'cancel_checkout_session',
    'POST',
    '/checkout_sessions/{id}/cancel',
    'ACP: cancel an open checkout session.',
    { schema: payload('ACP CancelSessionRequest: intent_trace (optional).'), required: false },
    { destructiveHint: true, openWorldHint: false },
  ),
];

export const acpToolNamed = (name: string) => ACP_TOOLS.find((t) => t.name === name);

const validators = new WeakMap<AcpTool, ReturnType<typeof compileArgumentValidator>>();

/** Malformed arguments (the binding's envelope): JSON-RPC -32602, nothing runs. */
function checkArguments(acpTool: AcpTool, args: Record<string, unknown>) {
  let validate = validators.get(acpTool);
  if (!validate) {
    validate = compileArgumentValidator(acpTool.inputSchema);
    validators.set(acpTool, validate);
  }
  if (validate(args)) return;
  const details = validationDetails('body', validate.errors ?? []);
  throw new ProtocolError(
    -32602,
    `Invalid arguments for ${acpTool.name}: ${details.map((d) => d.message).join('; ')}`,
    {
      details,
    },
  );
}

/** The headers of the REST call: meta's fields, and an Idempotency-Key on every write. */
function headersOf(acpTool: AcpTool, meta: Record<string, unknown>): Record<string, string> {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const key = text(meta.idempotency_key) ?? (acpTool.method === 'POST' ? randomUUID() : undefined);
  const requestId = text(meta.request_id);
  const signature = text(meta.signature);
  const timestamp = text(meta.timestamp);
  return {
    'api-version': String(meta.api_version),
    ...(key && acpTool.method === 'POST' ? { 'idempotency-key': key } : {}),
    ...(requestId ? { 'request-id': requestId } : {}),
    ...(signature ? { signature } : {}),
    ...(timestamp ? { timestamp } : {}),
  };
}

export async function callAcpTool(
  acpTool: AcpTool,
  args: Record<string, unknown>,
  send: AcpSend,
): Promise<CallToolResult> {
  checkArguments(acpTool, args);
  const meta = args.meta as Record<string, unknown>;
  const path = acpTool.path.replace('{id}', encodeURIComponent(String(args.id ?? '')));
  const body = acpTool.method === 'POST' ? (args.payload ?? {}) : undefined;
  const res = await send(acpTool.method, API_PREFIX + path, body, headersOf(acpTool, meta));
  const answer = res.body as Record<string, unknown>;
  if (res.status >= 400) throw new ProtocolError(-32000, String(answer?.message ?? 'ACP error'), answer);
  return {
    content: [{ type: 'text', text: JSON.stringify(answer) }],
    structuredContent: answer,
    _meta: {
      httpStatus: res.status,
      ...(res.headers['idempotent-replayed'] ? { idempotentReplayed: true } : {}),
    },
  };
}
