import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import {
  createMcpHandler,
  isLegacyRequest,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';

/** The protocol revisions /mcp serves: the 2025 handshake era and the stateless 2026 one. */
export const MCP_PROTOCOL_VERSIONS = { legacy: '2025-11-25', modern: '2026-07-28' } as const;

/**
 * One POST to /mcp, answered in the protocol era the request itself claims, so a client of either
 * revision is served by the same endpoint with no session to remember:
 * - 2026-07-28 (stateless): the request carries its protocol version in `_meta` and the
 *   `MCP-Protocol-Version` header; there is no `initialize`, `server/discover` answers what the
 *   server supports. The SDK's `createMcpHandler` validates the envelope and the standard headers
 *   and answers version mismatches (`-32022`, listing the versions it serves).
 * - 2025-11-25 and earlier: the `initialize` handshake, each request served statelessly by the
 *   Streamable HTTP transport with JSON responses.
 * Both build the same per-request `Server` (the key's tools), so the two eras cannot drift apart.
 */
export function mcpRequestHandler(serverFor: (request: FastifyRequest) => Server, log: FastifyBaseLogger) {
  // The Fastify request behind each web Request handed to the SDK, for the server factory.
  const fastifyRequests = new WeakMap<Request, FastifyRequest>();
  const modern = createMcpHandler(
    ({ requestInfo }) => {
      const request = requestInfo && fastifyRequests.get(requestInfo);
      if (!request) throw new Error('MCP request without its HTTP request');
      return serverFor(request);
    },
    {
      legacy: 'reject',
      onerror: (error) => log.debug({ err: error }, 'mcp request refused'),
    },
  );

  return async (request: FastifyRequest, reply: FastifyReply) => {
    const aborted = new AbortController();
    // The client going away ends the exchange (and a listen stream) on our side too.
    reply.raw.once('close', () => aborted.abort());
    const web = webRequestOf(request, aborted.signal);
    const parsedBody = request.body;
    let response: Response;
    if (await isLegacyRequest(web, parsedBody)) {
      response = await serveLegacy(serverFor(request), web, parsedBody);
    } else {
      fastifyRequests.set(web, request);
      response = await modern.fetch(web, { parsedBody });
    }
    reply.code(response.status);
    response.headers.forEach((value, name) => {
      reply.header(name, value);
    });
    if (!response.body) return reply.send();
    // A stream (SSE) is passed on as it comes: a subscriptions/listen stream stays open.
    if (response.headers.get('content-type')?.startsWith('text/event-stream'))
      return reply.send(Readable.fromWeb(response.body as NodeReadableStream));
    return reply.send(await response.text());
  };
}

/** A 2025-era request: served by a fresh stateless transport (JSON responses), then closed. */
async function serveLegacy(server: Server, request: Request, parsedBody: unknown): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, { parsedBody });
    // The whole answer is read before the server closes (JSON responses end with the exchange).
    const text = await response.text();
    return new Response(text || null, { status: response.status, headers: response.headers });
  } finally {
    await transport.close();
    await server.close();
  }
}

/** The Fastify request as a web-standard Request (its body already parsed, sent again as JSON). */
export function webRequestOf(request: FastifyRequest, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  return new Request(`http://${request.host}${request.url}`, {
    method: request.method,
    headers,
    ...(signal ? { signal } : {}),
    ...(request.method === 'POST' ? { body: JSON.stringify(request.body ?? null) } : {}),
  });
}
