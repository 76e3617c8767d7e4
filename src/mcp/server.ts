import { originValidation } from '@modelcontextprotocol/fastify';
import {
  type CallToolResult,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasScope } from '../core/scopes.js';
import { requireCtx } from '../http/auth.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../http/openapi.js';
import type { TypedApp } from '../http/types.js';
import {
  BODY_ARGUMENT,
  IDEMPOTENCY_KEY_ARGUMENT,
  type OpenApiDocumentLike,
  type ToolDefinition,
  toolsFromOpenApi,
  toolUrl,
} from './tools.js';

export const MCP_PATH = '/mcp';

export const MCP_RESOURCES = [
  {
    uri: 'commerce://catalog',
    name: 'catalog',
    title: 'Product catalog',
    description: 'The active products of the key’s tenant, as GET /api/v1/catalog returns them (read scope).',
    mimeType: 'application/json',
    path: '/api/v1/catalog',
  },
  {
    uri: 'commerce://openapi.json',
    name: 'openapi',
    title: 'OpenAPI document',
    description: 'The OpenAPI 3.1 document every tool is generated from (GET /api/v1/openapi.json).',
    mimeType: 'application/json',
    path: '/api/v1/openapi.json',
  },
] as const;

const INSTRUCTIONS = `Tools are the REST operations of the Commerce Agent API, one per operationId; you see only those your API key's scopes allow.
Results are the REST envelope { data, nextActions }: follow nextActions (rel -> the tool with that operation) instead of guessing ids.
Errors come back with isError and the REST error body { error, code, details, requestId }.
Write tools take an optional idempotencyKey: reuse the same key when you retry the same change.
Typical flow: createAccount, createCart, addCartItem, createOrder, createPaymentSession (or payInvoice), completePaymentSession.`;

interface Call {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: unknown;
}

/**
 * The MCP endpoint (Streamable HTTP, stateless): a fresh MCP server per HTTP request, acting for
 * the request's API key. Tools are generated from the OpenAPI document once, on the first call
 * after the app is ready; a tool call runs the real route through `app.inject`, so
 * authentication, rate limits, idempotency and audit apply exactly as over REST.
 */
export function registerMcpRoutes(app: TypedApp, options: { publicBaseUrl: string }) {
  let tools: ToolDefinition[] | undefined;
  const allTools = () => {
    tools ??= toolsFromOpenApi(app.swagger() as unknown as OpenApiDocumentLike);
    return tools;
  };

  const inject = async (
    request: FastifyRequest,
    method: string,
    url: string,
    payload?: unknown,
    idempotencyKey?: string,
  ): Promise<Call> => {
    const headers: Record<string, string> = { 'x-request-id': `${request.id}.mcp` };
    if (request.headers.authorization) headers.authorization = request.headers.authorization;
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers,
      remoteAddress: request.ip,
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
    let body: unknown = null;
    if (res.body) {
      try {
        body = JSON.parse(res.body);
      } catch {
        body = { error: res.body, code: 'internal', requestId: res.headers['x-request-id'] };
      }
    }
    return { status: res.statusCode, headers: res.headers, body };
  };

  const callTool = async (
    request: FastifyRequest,
    name: string,
    args: Record<string, unknown>,
  ): Promise<CallToolResult> => {
    const tool = allTools().find((t) => t.name === name);
    if (!tool) {
      return errorResult({
        error: `Unknown tool "${name}"; list the tools to see those this key may call`,
        code: 'not_found',
        requestId: request.id,
      });
    }
    const missing = tool.pathParams.filter((p) => args[p] === undefined || args[p] === '');
    if (missing.length) {
      const details = missing.map((field) => ({ field, rule: 'required', message: `${field} is required` }));
      return errorResult({
        error: `Missing ${missing.join(', ')}`,
        code: 'validation_failed',
        details,
        requestId: request.id,
      });
    }
    const key = args[IDEMPOTENCY_KEY_ARGUMENT];
    const res = await inject(
      request,
      tool.method,
      toolUrl(tool, args),
      tool.hasBody ? (args[BODY_ARGUMENT] ?? (tool.write ? {} : undefined)) : undefined,
      tool.write && typeof key === 'string' ? key : undefined,
    );
    const meta = {
      httpStatus: res.status,
      requestId: String(res.headers['x-request-id'] ?? ''),
      ...(res.headers['x-idempotency-replayed'] ? { idempotentReplayed: true } : {}),
    };
    if (res.status >= 400) return { ...errorResult(res.body), _meta: meta };
    const structured =
      res.body && typeof res.body === 'object' && !Array.isArray(res.body)
        ? (res.body as Record<string, unknown>)
        : { data: res.body };
    return {
      content: [{ type: 'text', text: JSON.stringify(structured) }],
      structuredContent: structured,
      _meta: meta,
    };
  };

  const mcpServerFor = (request: FastifyRequest) => {
    const ctx = requireCtx(request);
    const server = new Server(
      { name: SERVICE_NAME, version: SERVICE_VERSION },
      { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler('tools/list', async () => ({
      tools: allTools()
        .filter((t) => hasScope(ctx.scopes, t.scope))
        .map((t) => ({
          name: t.name,
          title: t.title,
          description: t.description,
          inputSchema: t.inputSchema,
          annotations: t.annotations,
        })),
    }));
    server.setRequestHandler('tools/call', async (req) =>
      callTool(request, req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>),
    );
    server.setRequestHandler('resources/list', async () => ({
      resources: MCP_RESOURCES.map(({ path: _path, ...r }) => r),
    }));
    server.setRequestHandler('resources/read', async (req) => {
      const resource = MCP_RESOURCES.find((r) => r.uri === req.params.uri);
      if (!resource) throw new Error(`Unknown resource ${req.params.uri}`);
      const res = await inject(request, 'GET', resource.path);
      return {
        contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: JSON.stringify(res.body) }],
      };
    });
    return server;
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const server = mcpServerFor(request);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(webRequestOf(request), {
        ...(request.method === 'POST' ? { parsedBody: request.body } : {}),
      });
      reply.code(response.status);
      response.headers.forEach((value, name) => {
        reply.header(name, value);
      });
      const text = await response.text();
      return reply.send(text);
    } finally {
      await transport.close();
      await server.close();
    }
  };

  // Browsers send Origin: only pages of this deployment's own host (or localhost) may call /mcp.
  // Clients that are not browsers send no Origin and pass.
  const allowedOrigins = [new URL(options.publicBaseUrl).hostname, 'localhost', '127.0.0.1', '[::1]'];
  const routeOptions = {
    config: { public: false, scope: 'read' as const },
    onRequest: originValidation(allowedOrigins),
  };
  app.post(MCP_PATH, routeOptions, handle);
  // Stateless: there is no server-initiated stream to open (GET) and no session to end (DELETE).
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('Allow', 'POST')
      .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST only' }, id: null });
  app.get(MCP_PATH, routeOptions, notAllowed);
  app.delete(MCP_PATH, routeOptions, notAllowed);
}

function errorResult(body: unknown): CallToolResult {
  const structured =
    body && typeof body === 'object' ? (body as Record<string, unknown>) : { error: String(body) };
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}

/** The Fastify request as a web-standard Request (its body already parsed, sent again as JSON). */
function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  return new Request(`http://${request.host}${request.url}`, {
    method: request.method,
    headers,
    ...(request.method === 'POST' ? { body: JSON.stringify(request.body ?? null) } : {}),
  });
}
