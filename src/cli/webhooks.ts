import { randomBytes } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ServerApi, serverApi } from './server-api.js';
import { CliError, type Options, optional } from './usage.js';

// `webhooks listen` and `webhooks trigger`: local webhook development against a running server,
// as Stripe's `stripe listen`. Listen opens a local endpoint, subscribes it (a loopback target the
// sandbox allows once the tenant turns `allowLoopbackWebhooks` on), prints each delivery and
// forwards it unchanged (body and signature headers) to --forward-to.

/** The path marking the endpoints listen creates: trigger finds them by it. */
const LISTEN_PATH = '/cli-listen/';

interface Webhook {
  id: string;
  url: string;
  secret?: string;
}

/** Hop-by-hop headers (and those the forwarding request sets itself) are not forwarded. */
const NOT_FORWARDED = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Forwards one delivery as received; the receiver's status, or why there was none. */
async function forward(target: string, req: IncomingMessage, body: Buffer) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (!NOT_FORWARDED.has(name) && value !== undefined) headers[name] = String(value);
  }
  try {
    const res = await fetch(target, { method: 'POST', headers, body, signal: AbortSignal.timeout(9_000) });
    return { status: res.status, text: (await res.text()).slice(0, 1024) };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    return { status: 502, text: `forwarding to ${target} failed: ${cause}`, failure: cause };
  }
}

function eventOf(headers: IncomingMessage['headers'], body: Buffer): { type: string; id: string } {
  let parsed: { event?: string; type?: string; id?: string } = {};
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {}
  const type = String(headers['x-webhook-event'] ?? parsed.event ?? parsed.type ?? 'unknown');
  const id = String(headers['webhook-id'] ?? headers['request-id'] ?? parsed.id ?? '-');
  return { type, id };
}

function startEndpoint(token: string, forwardTo: string | undefined, print: (line: string) => void) {
  const server = http.createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== `${LISTEN_PATH}${token}`) {
      res.writeHead(404).end();
      return;
    }
    const body = await readBody(req);
    const { type, id } = eventOf(req.headers, body);
    const at = new Date().toISOString();
    if (!forwardTo) {
      print(`${at}  ${type}  ${id}  -> 204 (received; no --forward-to)`);
      res.writeHead(204).end();
      return;
    }
    const result = await forward(forwardTo, req, body);
    print(`${at}  ${type}  ${id}  -> ${result.failure ? `failed (${result.failure})` : result.status}`);
    // The receiver's answer is the delivery's outcome: a failure is retried by the server.
    res.writeHead(result.status, { 'content-type': 'text/plain; charset=utf-8' }).end(result.text);
  });
  return new Promise<http.Server>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** Turns the tenant's loopback setting on if needed; whether this call turned it on. */
async function allowLoopback(api: ServerApi): Promise<boolean> {
  const settings = await api.call<{ allowLoopbackWebhooks?: boolean }>('GET', '/admin/settings');
  if (settings.allowLoopbackWebhooks) return false;
  await api.call('PATCH', '/admin/settings', { allowLoopbackWebhooks: true });
  return true;
}

/**
 * Turns the setting listen turned on off again, unless another listen still has an endpoint (it
 * needs the setting too).
 */
async function restoreLoopback(api: ServerApi, print: (line: string) => void) {
  const hooks = await api.call<Webhook[]>('GET', '/webhooks?limit=100');
  if (hooks.some((w) => w.url.includes(LISTEN_PATH))) return;
  await api.call('PATCH', '/admin/settings', { allowLoopbackWebhooks: false });
  print('Turned allowLoopbackWebhooks off again.');
}

/**
 * `webhooks listen`: runs until SIGINT/SIGTERM, then removes its endpoint (and turns the loopback
 * setting off again if it turned it on).
 */
export async function listenWebhooks(opts: Options, print: (line: string) => void): Promise<void> {
  const forwardTo = optional(opts, 'forward-to');
  if (forwardTo !== undefined && !/^https?:\/\/[^/]/.test(forwardTo))
    throw new CliError(
      `--forward-to must be an http(s) URL, e.g. http://localhost:3001/hook (got ${forwardTo})`,
    );
  const events = (optional(opts, 'events') ?? '*').split(',').map((e) => e.trim());
  const api = serverApi(opts);
  const turnedOn = await allowLoopback(api);
  const token = randomBytes(12).toString('hex');
  const endpoint = await startEndpoint(token, forwardTo, print);
  const { port } = endpoint.address() as AddressInfo;
  let webhook: Webhook;
  try {
    webhook = await api.call<Webhook>('POST', '/webhooks', {
      url: `http://127.0.0.1:${port}${LISTEN_PATH}${token}`,
      events,
    });
  } catch (err) {
    endpoint.close();
    if (turnedOn) await restoreLoopback(api, print).catch(() => {});
    throw err;
  }
  if (turnedOn) print('Turned on allowLoopbackWebhooks for this tenant (sandbox), so it can deliver here.');
  print(
    `Ready: ${events.join(',')} deliveries of ${api.baseUrl} -> ${forwardTo ?? 'printed only'} ` +
      `(webhook ${webhook.id}, signing secret ${webhook.secret}). Ctrl-C to stop.`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const warn = (err: Error) => print(`Warning: ${err.message}`);
  await api.call('DELETE', `/webhooks/${webhook.id}`).catch(warn);
  endpoint.close();
  print(`Stopped: webhook ${webhook.id} removed.`);
  if (turnedOn) await restoreLoopback(api, print).catch(warn);
}

/** `webhooks trigger [webhook.test]`: a test event to the listening endpoints (or --webhook). */
export async function triggerWebhook(
  event: string | undefined,
  opts: Options,
  print: (line: string, value: unknown) => void,
): Promise<void> {
  if (event !== undefined && event !== 'webhook.test')
    throw new CliError(
      `Only webhook.test can be sent on demand; ${event} comes from the operation that emits it (e.g. create an order: docs/getting-started.md)`,
    );
  const api = serverApi(opts);
  const chosen = optional(opts, 'webhook');
  const ids = chosen
    ? [chosen]
    : (await api.call<Webhook[]>('GET', '/webhooks?limit=100'))
        .filter((w) => w.url.includes(LISTEN_PATH))
        .map((w) => w.id);
  if (ids.length === 0)
    throw new CliError(
      'No listening endpoint: run `commerce-agent webhooks listen` first, or give --webhook <id>',
    );
  for (const id of ids) {
    const delivery = await api.call<{ eventId: string; status: string }>('POST', `/webhooks/${id}/test`);
    print(`Queued webhook.test ${delivery.eventId} to webhook ${id} (${delivery.status})`, delivery);
  }
}
