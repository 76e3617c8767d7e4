import { originValidation } from '@modelcontextprotocol/fastify';
import { type CallToolResult, Server } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { renderAgentGuide, scopeSummaries } from '../core/agent-guide.js';
import { hasScope } from '../core/scopes.js';
import { requireCtx } from '../http/auth.js';
import { forwardedWithinLimit } from '../http/gate.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../http/openapi.js';
import type { TypedApp } from '../http/types.js';
import { compileArgumentValidator, validationDetails } from '../http/validation.js';
import { ACP_TOOLS, acpToolNamed, callAcpTool } from './acp-tools.js';
import { hostValidation } from './host-validation.js';
import { serveResources } from './resources.js';
import {
  eventTypesLine,
  IDEMPOTENCY_KEY_ARGUMENT,
  misroutingArgument,
  type OpenApiDocumentLike,
  type ToolDefinition,
  toolsFromOpenApi,
  toolUrl,
} from './tools.js';
import { mcpRequestHandler } from './transport.js';

export const MCP_PATH = '/mcp';
const LISTING_TTL_MS = 300_000;

const PREAMBLE = `Tools are the REST operations of the Commerce Agent API, one per operationId; you see only those your API key's scopes allow.
Arguments are flat: path, query and body fields side by side at the top level (a body field named like a path or query parameter is body_<name>). Unknown or misplaced arguments are refused before anything runs.
Results are the REST envelope { data, nextActions } (both always present; meta too when a list was paged). A tool's outputSchema gives the top level of data; the whole schema, every field, is the resource commerce://tools/{name}/output-schema. Each next action names the tool (operationId) and the arguments the server already knows: call it with those, adding only what you decide. An action with allowed: false says why in reason.
Errors come back with isError and the REST error body { error, code, details, requestId }; details[].argument names the argument at fault, and nextActions (when present) say how to recover.
The ACP checkout tools (snake_case: create_checkout_session and the like) follow the ACP MCP binding instead: arguments { meta: the ACP request headers (api_version "2026-04-17", idempotency_key, ...), id, payload }, results the ACP CheckoutSession, errors JSON-RPC -32000 with the ACP error in data.`;

/** The server's instructions: the preamble, then the agent guide (flow, scopes, shared rules). */
export function mcpInstructions(doc: OpenApiDocumentLike): string {
  return `${PREAMBLE}\n${eventTypesLine()}\n\n${renderAgentGuide(scopeSummaries(doc.paths))}`;
}

interface Call {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: unknown;
}

/**
 * The MCP endpoint (Streamable HTTP, stateless): a fresh MCP server per HTTP request, acting for
 * the request's API key. Tools are generated from the OpenAPI document once, on the first call
 * after the app is ready; a tool call runs the real route through `app.inject`, so
 * authentication, scopes, idempotency and audit apply exactly as over REST, and the call counts
 * once against the key's rate limit (the /mcp request).
 */
export function registerMcpRoutes(app: TypedApp, options: { publicBaseUrl: string }) {
  let tools: ToolDefinition[] | undefined;
  let instructions: string | undefined;
  const document = () => app.swagger() as unknown as OpenApiDocumentLike;
  const allTools = () => {
    tools ??= toolsFromOpenApi(document());
    return tools;
  };
  const serverInstructions = () => {
    instructions ??= mcpInstructions(document());
    return instructions;
  };

  const inject = async (
    request: FastifyRequest,
    method: string,
    url: string,
    payload?: unknown,
    idempotencyKey?: string,
    extraHeaders: Record<string, string> = {},
  ): Promise<Call> => {
    const headers: Record<string, string> = { 'x-request-id': `${request.id}.mcp`, ...extraHeaders };
    if (request.headers.authorization) headers.authorization = request.headers.authorization;
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    if (payload !== undefined) headers['content-type'] = 'application/json';
    // The /mcp request was counted against the key's rate limit: the route it runs is not again.
    const res = await forwardedWithinLimit(() =>
      app.inject({
        method: method as 'GET',
        url,
        headers,
        remoteAddress: request.ip,
        ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
      }),
    );
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
    const acpTool = acpToolNamed(name);
    if (acpTool)
      return callAcpTool(acpTool, args, (method, url, payload, headers) =>
        inject(request, method, url, payload, undefined, headers),
      );
    const tool = allTools().find((t) => t.name === name);
    if (!tool) {
      return errorResult({
        error: `Unknown tool "${name}"; list the tools to see those this key may call`,
        code: 'not_found',
        requestId: request.id,
      });
    }
    const refused =
      refuseArguments(tool, args, request.id) ?? refuseMisrouting(tool, args, allTools(), request.id);
    if (refused) return refused;
    const key = args[IDEMPOTENCY_KEY_ARGUMENT];
    const res = await inject(
      request,
      tool.method,
      toolUrl(tool, args),
      tool.hasBody ? bodyOf(tool, args) : undefined,
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
      {
        capabilities: { tools: {}, resources: {} },
        instructions: serverInstructions(),
        // 2026-07-28 results say how long they may be kept. What changes only with a deployment
        // is kept five minutes: the tool listing for this key alone (it depends on its scopes),
        // the rest by anyone. Resource contents (the catalog) are read fresh.
        cacheHints: {
          'tools/list': { ttlMs: LISTING_TTL_MS, cacheScope: 'private' },
          'resources/list': { ttlMs: LISTING_TTL_MS, cacheScope: 'public' },
          'resources/templates/list': { ttlMs: LISTING_TTL_MS, cacheScope: 'public' },
          'server/discover': { ttlMs: LISTING_TTL_MS, cacheScope: 'public' },
        },
      },
    );
    server.setRequestHandler('tools/list', async () => ({
      tools: [
        ...allTools()
          .filter((t) => hasScope(ctx.scopes, t.scope))
          .map((t) => ({
            name: t.name,
            title: t.title,
            description: t.description,
            inputSchema: t.inputSchema,
            outputSchema: t.outputSchema,
            annotations: t.annotations,
          })),
        ...ACP_TOOLS.filter((t) => hasScope(ctx.scopes, t.scope)).map(
          ({ name, description, inputSchema, annotations }) => ({
            name,
            description,
            inputSchema,
            annotations,
          }),
        ),
      ],
    }));
    server.setRequestHandler('tools/call', async (req) =>
      callTool(request, req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>),
    );
    serveResources(
      server,
      () => allTools().filter((t) => hasScope(ctx.scopes, t.scope)),
      async (path) => (await inject(request, 'GET', path)).body,
    );
    return server;
  };

  const handle = mcpRequestHandler(mcpServerFor, app.log);

  // Browsers send Origin: only pages of this deployment's own host (or localhost) may call /mcp.
  // Clients that are not browsers send no Origin and pass.
  const allowedOrigins = [new URL(options.publicBaseUrl).hostname, 'localhost', '127.0.0.1', '[::1]'];
  // And every request must name this server in Host (DNS rebinding: a re-pointed name sends its own).
  const routeOptions = {
    config: { public: false, scope: 'read' as const },
    onRequest: [hostValidation(options.publicBaseUrl), originValidation(allowedOrigins)],
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

const argumentValidators = new WeakMap<ToolDefinition, ReturnType<typeof compileArgumentValidator>>();

/**
 * Checks a call's arguments against the tool's input schema before anything runs: an unknown
 * argument (a body wrapped in `body`, a misspelt field) or a wrong type is an error result that
 * names it, never a request with the argument dropped.
 */
function refuseArguments(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  requestId: string,
): CallToolResult | undefined {
  let validate = argumentValidators.get(tool);
  if (!validate) {
    validate = compileArgumentValidator(tool.inputSchema);
    argumentValidators.set(tool, validate);
  }
  if (validate(args)) return undefined;
  const known = Object.keys(tool.inputSchema.properties as object).join(', ') || 'none';
  const details = validationDetails('body', validate.errors ?? []).map((d) => ({
    ...d,
    argument: d.field,
    ...(d.rule === 'additionalProperties'
      ? { message: `${d.field} is not an argument of ${tool.name} (its arguments: ${known})` }
      : {}),
  }));
  return errorResult({
    error: `Invalid arguments for ${tool.name}: ${details.map((d) => d.message).join('; ')}`,
    code: 'validation_failed',
    details,
    requestId,
  });
}

/** A call whose path arguments would run another operation than the tool's own: refused, nothing runs. */
function refuseMisrouting(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  tools: readonly ToolDefinition[],
  requestId: string,
): CallToolResult | undefined {
  const wrong = misroutingArgument(tool, args, tools);
  if (!wrong) return undefined;
  return errorResult({
    error: `Invalid arguments for ${tool.name}: ${wrong.message}`,
    code: 'validation_failed',
    details: [
      { field: wrong.argument, argument: wrong.argument, rule: 'pathSegment', message: wrong.message },
    ],
    requestId,
  });
}

/** The JSON body a tool call sends: its body arguments under their field names. */
function bodyOf(tool: ToolDefinition, args: Record<string, unknown>): Record<string, unknown> | undefined {
  const body: Record<string, unknown> = {};
  for (const [argument, field] of tool.bodyFields)
    if (args[argument] !== undefined) body[field] = args[argument];
  return Object.keys(body).length > 0 || tool.write ? body : undefined;
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
