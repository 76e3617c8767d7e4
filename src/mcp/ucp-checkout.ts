import { originValidation } from '@modelcontextprotocol/fastify';
import {
  type CallToolResult,
  ProtocolError,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { serializeDictionary } from 'structured-headers';
import { SERVICE_NAME, SERVICE_VERSION } from '../http/openapi.js';
import { compileArgumentValidator, validationDetails } from '../http/validation.js';
import { webRequestOf } from './transport.js';

// UCP's MCP binding (checkout-mcp.md, order-mcp.md): JSON-RPC tools `create_checkout`,
// `get_checkout`, `update_checkout`, `complete_checkout`, `cancel_checkout` and `get_order`, whose
// arguments carry `meta` (`ucp-agent.profile`, `idempotency-key`), `id` and `checkout`. Each call
// runs the UCP REST route through `app.inject` with the same key, so authentication, negotiation,
// idempotency and limits are the REST ones; the answer is the UCP body in `structuredContent`.
// Discovery failures are JSON-RPC error -32001, protocol errors -32000 (internal -32603), invalid
// arguments -32602; business outcomes (not found, closed, not compatible) are results.

/** One UCP tool: its contract, and the REST call it is. */
export interface UcpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: 'object' };
  outputSchema?: Record<string, unknown> & { type: 'object' };
  annotations: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint: false;
  };
  method: 'GET' | 'POST' | 'PUT';
  /** The REST path for these arguments (ids encoded). */
  path: (args: Record<string, unknown>) => string;
  /** The REST body, for writes. */
  body?: (args: Record<string, unknown>) => unknown;
}

/** Negotiation failures (overview.md, "Error Codes": -32001). */
const DISCOVERY = new Set([
  'invalid_profile_url',
  'profile_unreachable',
  'profile_malformed',
  'version_unsupported',
]);
/** Protocol errors: the request was not processed (-32000). */
const PROTOCOL = new Set([
  'unauthorized',
  'forbidden',
  'idempotency_conflict',
  'idempotency_in_flight',
  'rate_limited',
  'overloaded',
  'service_unavailable',
  'payload_too_large',
  'unsupported_media_type',
]);

interface UcpError {
  ucp?: { status?: string };
  messages?: { code?: string; content?: string }[];
}

const firstMessage = (body: unknown) => (body as UcpError | null)?.messages?.[0] ?? {};

interface Meta {
  'ucp-agent': { profile: string };
  'idempotency-key'?: string;
}

/** The REST answer as an MCP result, or the JSON-RPC error UCP gives it. */
function toolAnswer(status: number, headers: Record<string, unknown>, body: unknown): CallToolResult {
  const { code = 'internal', content = `HTTP ${status}` } = firstMessage(body);
  if (status >= 500) {
    const retry = headers['retry-after'];
    if (status === 500) throw new ProtocolError(-32603, content, { code });
    throw new ProtocolError(-32000, content, { code, ...(retry ? { retry_after: Number(retry) } : {}) });
  }
  if (status >= 400 && DISCOVERY.has(code)) {
    const message =
      code === 'version_unsupported' ? 'Protocol version not supported' : 'UCP discovery failed';
    throw new ProtocolError(-32001, message, { code, content });
  }
  if (status >= 400 && PROTOCOL.has(code)) {
    const retry = headers['retry-after'];
    throw new ProtocolError(-32000, content, { code, ...(retry ? { retry_after: Number(retry) } : {}) });
  }
  if (status === 400) throw new ProtocolError(-32602, content, body);
  const structured = (body ?? {}) as Record<string, unknown>;
  return {
    ...(status >= 400 ? { isError: true } : {}),
    structuredContent: structured,
    content: [{ type: 'text', text: JSON.stringify(structured) }],
  };
}

const validators = new WeakMap<UcpTool, ReturnType<typeof compileArgumentValidator>>();

function checkArguments(tool: UcpTool, args: Record<string, unknown>): void {
  let validate = validators.get(tool);
  if (!validate) {
    validate = compileArgumentValidator(tool.inputSchema);
    validators.set(tool, validate);
  }
  if (validate(args)) return;
  const details = validationDetails('body', validate.errors ?? []);
  throw new ProtocolError(
    -32602,
    `Invalid arguments for ${tool.name}: ${details.map((d) => d.message).join('; ')}`,
    {
      details,
    },
  );
}

/** Runs one tool as its REST call, with the caller's key, UCP-Agent and Idempotency-Key. */
async function callTool(request: FastifyRequest, tool: UcpTool, args: Record<string, unknown>) {
  checkArguments(tool, args);
  const meta = args.meta as Meta;
  const headers: Record<string, string> = {
    'x-request-id': `${request.id}.ucp`,
    'ucp-agent': serializeDictionary(new Map([['profile', [meta['ucp-agent'].profile, new Map()]]])),
  };
  if (request.headers.authorization) headers.authorization = request.headers.authorization;
  if (meta['idempotency-key'] !== undefined) headers['idempotency-key'] = meta['idempotency-key'];
  const body = tool.body?.(args);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await request.server.inject({
    method: tool.method,
    url: tool.path(args),
    headers,
    remoteAddress: request.ip,
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  let parsed: unknown = null;
  try {
    parsed = res.body ? JSON.parse(res.body) : null;
  } catch {
    parsed = null;
  }
  return toolAnswer(res.statusCode, res.headers, parsed);
}

function serverFor(request: FastifyRequest, tools: readonly UcpTool[], instructions: string) {
  const server = new Server(
    { name: `${SERVICE_NAME} (UCP)`, version: SERVICE_VERSION },
    { capabilities: { tools: {} }, instructions },
  );
  server.setRequestHandler('tools/list', async () => ({
    tools: tools.map(({ name, description, inputSchema, outputSchema, annotations }) => ({
      name,
      description,
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      annotations,
    })),
  }));
  server.setRequestHandler('tools/call', async (req) => {
    const tool = tools.find((t) => t.name === req.params.name);
    if (!tool) throw new ProtocolError(-32602, `Unknown tool "${req.params.name}"`);
    return callTool(request, tool, (req.params.arguments ?? {}) as Record<string, unknown>);
  });
  return server;
}

/**
 * Answers one MCP request (Streamable HTTP, stateless, JSON responses) with the UCP tools. Pages
 * of other origins than this deployment's host (or localhost) are refused, as on /mcp.
 */
export async function serveUcpMcp(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { tools: readonly UcpTool[]; instructions: string; allowedOrigins: string[] },
): Promise<FastifyReply> {
  await originValidation(options.allowedOrigins)(request, reply);
  if (reply.sent) return reply;
  const server = serverFor(request, options.tools, options.instructions);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(webRequestOf(request), { parsedBody: request.body });
    reply.code(response.status);
    response.headers.forEach((value, name) => {
      reply.header(name, value);
    });
    return reply.send(await response.text());
  } finally {
    await transport.close();
    await server.close();
  }
}
