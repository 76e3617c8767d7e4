import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { readServerFile } from './server-file.js';
import { CliError, type Options, optional } from './usage.js';

/** A running server's HTTP API as the CLI uses it: `/api/v1` calls with an admin key. */
export interface ServerApi {
  baseUrl: string;
  /** The envelope's `data`; an error answer becomes a one-line CliError with the server's message. */
  call<T>(method: string, apiPath: string, body?: unknown): Promise<T>;
  /** The raw answer (streams: the feed). */
  fetch(apiPath: string): Promise<Response>;
}

/** The demo tenant's admin key, written by the server that seeded the embedded database. */
function demoAdminKey(dataDir: string): string | undefined {
  try {
    const file = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-keys.json'), 'utf8'));
    return typeof file?.keys?.admin === 'string' ? file.keys.admin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The server to talk to: --url, COMMERCE_API_URL, or the embedded server running on DATA_DIR; the
 * key: --api-key, COMMERCE_API_KEY, or the demo admin key in DATA_DIR/demo-keys.json.
 */
export function resolveServer(opts: Options): { baseUrl: string; apiKey: string } | undefined {
  const dataDir = loadConfig().dataDir;
  const baseUrl = optional(opts, 'url') ?? (process.env.COMMERCE_API_URL || readServerFile(dataDir)?.url);
  if (!baseUrl) return undefined;
  const apiKey = optional(opts, 'api-key') ?? (process.env.COMMERCE_API_KEY || demoAdminKey(dataDir));
  if (!apiKey)
    throw new CliError(
      `No API key for ${baseUrl}: give --api-key <admin key> (or set COMMERCE_API_KEY); an admin key comes from \`commerce-agent keys issue --scopes admin\` or DATA_DIR/demo-keys.json`,
    );
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey };
}

export function serverApi(opts: Options): ServerApi {
  const server = resolveServer(opts);
  if (!server)
    throw new CliError(
      'No server to talk to: start one (npm start) or give --url <base URL> (or set COMMERCE_API_URL)',
    );
  const { baseUrl, apiKey } = server;
  const send = async (method: string, apiPath: string, body?: unknown) => {
    try {
      return await fetch(`${baseUrl}/api/v1${apiPath}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new CliError(`Cannot reach the server at ${baseUrl} (${cause}): is it running? (--url)`);
    }
  };
  const failure = async (res: Response, method: string, apiPath: string) => {
    const text = await res.text();
    let message = text.slice(0, 300);
    try {
      const parsed = JSON.parse(text) as { error?: string; code?: string };
      if (parsed.error) message = `${parsed.code ?? 'error'}: ${parsed.error}`;
    } catch {}
    return new CliError(`${method} /api/v1${apiPath} answered ${res.status}: ${message}`);
  };
  return {
    baseUrl,
    async call<T>(method: string, apiPath: string, body?: unknown): Promise<T> {
      const res = await send(method, apiPath, body);
      if (!res.ok) throw await failure(res, method, apiPath);
      if (res.status === 204) return undefined as T;
      return ((await res.json()) as { data: T }).data;
    },
    async fetch(apiPath: string) {
      const res = await send('GET', apiPath);
      if (!res.ok) throw await failure(res, 'GET', apiPath);
      return res;
    },
  };
}
