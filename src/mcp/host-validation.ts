import type { FastifyReply, FastifyRequest } from 'fastify';

// DNS-rebinding protection for /mcp, beside the Origin check: a page of another site whose name
// was re-pointed at this server sends that site's name in Host. Only this server's own names are
// served: the loopback names (any port: a proxy on loopback in front of the server forwards its
// own port, and a rebinding page cannot send a loopback name), and the public base URL's host
// with its port (what a proxy in front of a deployment forwards).

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `host[:port]` split into a lower-case hostname and the port it names (undefined: none). */
function parseHost(value: string): { hostname: string; port: string | undefined } | null {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  return match ? { hostname: (match[1] as string).toLowerCase(), port: match[2] } : null;
}

/** Whether a request's Host header names this server. */
export function isAllowedHost(host: string | undefined, publicHost: string): boolean {
  if (!host) return false;
  if (host.toLowerCase() === publicHost.toLowerCase()) return true;
  const parsed = parseHost(host);
  return parsed !== null && LOOPBACK.has(parsed.hostname);
}

/** The onRequest hook: 403 with a JSON-RPC error naming the header, as the Origin check answers. */
export function hostValidation(publicBaseUrl: string) {
  const publicHost = new URL(publicBaseUrl).host;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (isAllowedHost(request.headers.host, publicHost)) return;
    await reply.code(403).send({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: `Invalid Host header: ${request.headers.host ?? '(none)'}; /mcp answers only this server's own names`,
      },
      id: null,
    });
  };
}
