import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does with one request:
 * - `proxy`: forwards it to the target and passes the answer back;
 * - `proxy-then-reset`: forwards it (the server runs it) and then drops the connection unanswered;
 * - `reset`: drops the connection without an answer;
 * - `hang`: never answers;
 * - a status: answers that itself (a gateway's 502, an overloaded 503), with headers and body.
 */
export type Fault =
  | 'proxy'
  | 'proxy-then-reset'
  | 'reset'
  | 'hang'
  | { status: number; headers?: Record<string, string>; body?: string };

export interface ProxiedRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
}

/** Headers of one connection or one message framing, not passed through. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function forward(target: string, req: IncomingMessage, body: Buffer): Promise<Response> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string' && !HOP_HEADERS.has(name)) headers.set(name, value);
  }
  return fetch(`${target}${req.url}`, {
    method: req.method ?? 'GET',
    headers,
    ...(body.length > 0 ? { body } : {}),
  });
}

async function answer(res: ServerResponse, upstream: Response): Promise<void> {
  const body = Buffer.from(await upstream.arrayBuffer());
  const headers: Record<string, string> = {};
  upstream.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name) && name !== 'content-encoding') headers[name] = value;
  });
  res.writeHead(upstream.status, headers).end(body);
}

/**
 * The edge we do not own, in a test: a local HTTP server in front of our real server that applies
 * `faults` to the requests in turn (then proxies every later one), recording each request.
 */
export async function startFaultProxy(target: string, faults: Fault[]) {
  const requests: ProxiedRequest[] = [];
  const plan = [...faults];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const key = req.headers['idempotency-key'];
    requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      idempotencyKey: typeof key === 'string' ? key : undefined,
    });
    const fault = plan.shift() ?? 'proxy';
    if (fault === 'hang') return;
    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (typeof fault === 'object') {
      res.writeHead(fault.status, fault.headers).end(fault.body ?? '');
      return;
    }
    const upstream = await forward(target, req, body);
    if (fault === 'proxy-then-reset') {
      await upstream.arrayBuffer();
      req.socket.destroy();
      return;
    }
    await answer(res, upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
