import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A platform's side for the tests: a plain-HTTP server on loopback (the sandbox allows it)
// serving UCP platform profiles by path, each with its status, body and Cache-Control.

export const VERSION = '2026-04-08';

const spec = (page: string) => `https://ucp.dev/${VERSION}/specification/${page}`;
const schema = (path: string) => `https://ucp.dev/${VERSION}/schemas/shopping/${path}`;

/** A platform profile declaring what our tests need (checkout, order, discount and fulfillment unless told otherwise; `catalog.search`, `catalog.lookup` by name). */
export function platformProfile(
  options: { version?: string; capabilities?: string[]; webhookUrl?: string } = {},
) {
  const names = options.capabilities ?? ['checkout', 'order', 'discount', 'fulfillment'];
  const capability = (name: string) => {
    // `catalog.search`: its spec page is catalog/search, its schema catalog_search.json.
    const base = {
      version: VERSION,
      spec: spec(name.replace('.', '/')),
      schema: schema(`${name.replace('.', '_')}.json`),
    };
    if (name === 'discount' || name === 'fulfillment')
      return { ...base, extends: 'dev.ucp.shopping.checkout' };
    if (name === 'order' && options.webhookUrl)
      return { ...base, config: { webhook_url: options.webhookUrl } };
    return base;
  };
  return {
    ucp: {
      version: options.version ?? VERSION,
      services: {
        'dev.ucp.shopping': [
          {
            version: VERSION,
            spec: spec('overview'),
            transport: 'rest',
            schema: `https://ucp.dev/${VERSION}/services/shopping/rest.openapi.json`,
          },
        ],
      },
      capabilities: Object.fromEntries(names.map((n) => [`dev.ucp.shopping.${n}`, [capability(n)]])),
      payment_handlers: {
        'com.example.sandbox_card': [
          {
            id: 'platform_sandbox_card',
            version: VERSION,
            spec: 'https://example.com/ucp/handlers/sandbox_card',
            schema: 'https://example.com/ucp/handlers/sandbox_card/schema.json',
          },
        ],
      },
    },
    signing_keys: [],
  };
}

export interface Served {
  status?: number;
  body: unknown;
  /** Raw text instead of JSON. */
  raw?: string;
  cacheControl?: string;
}

/** The platform's profile server: `serve(path, answer)` sets what a path answers; `hits(path)` counts. */
export async function startPlatform() {
  const routes = new Map<string, Served>();
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const answer = routes.get(path);
    if (!answer) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no profile here');
      return;
    }
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (answer.cacheControl) headers['cache-control'] = answer.cacheControl;
    res.writeHead(answer.status ?? 200, headers).end(answer.raw ?? JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = (path: string) => `http://127.0.0.1:${port}${path}`;
  return {
    url,
    serve(path: string, answer: Served) {
      routes.set(path, answer);
      return url(path);
    },
    hits: (path: string) => counts.get(path) ?? 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The UCP-Agent header naming a profile URL (RFC 8941 dictionary). */
export const ucpAgent = (profileUrl: string) => ({ 'ucp-agent': `profile="${profileUrl}"` });
