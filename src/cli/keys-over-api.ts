import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { type ServerApi, serverApi } from './server-api.js';
import { CliError, type Options, optional } from './usage.js';

// The commands a running server's admin API can do, for when the embedded database is held by
// it (or --url names a server): an admin key acts on its own tenant only.

type Print = (value: unknown, text: string) => void;

interface ApiKey {
  id: string;
  name: string;
  environment: string;
  scopes: string[];
  rateTier: string;
  keyPrefix: string;
  status: string;
  key?: string;
}

/** The admin key's tenant must be the one --tenant names. */
async function assertTenant(api: ServerApi, tenant: string) {
  const { tenantId } = await api.call<{ tenantId: string }>('GET', '/admin/settings');
  if (tenantId !== tenant)
    throw new CliError(
      `The API key belongs to tenant ${tenantId}, not --tenant ${tenant}: give that tenant's admin key with --api-key (or COMMERCE_API_KEY)`,
    );
}

async function exportFeed(api: ServerApi, out: string | undefined, print: Print) {
  const res = await api.fetch('/admin/feeds/acp');
  const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  if (out === undefined) return pipeline(body, process.stdout, { end: false });
  const target = path.resolve(out);
  const partial = `${target}.partial`;
  try {
    await pipeline(body, createWriteStream(partial));
    await rename(partial, target);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  print({ out: target }, `Wrote the feed of ${api.baseUrl} to ${target}`);
}

export async function runThroughApi(key: string, opts: Options, print: Print): Promise<void> {
  const api = serverApi(opts);
  await assertTenant(api, opts.tenant as string);
  switch (key) {
    case 'keys issue': {
      if (optional(opts, 'env') !== undefined)
        throw new CliError(
          '--env is not available through the API: the server issues keys of its own environment',
        );
      const scopes = (opts.scopes as string).split(',').map((s) => s.trim());
      const issued = await api.call<ApiKey>('POST', '/admin/api-keys', {
        name: optional(opts, 'name') ?? `${scopes.join('+')} key`,
        scopes,
        rateTier: optional(opts, 'tier') ?? 'standard',
      });
      return print(
        issued,
        `Issued ${issued.environment} key ${issued.id} [${issued.scopes.join(', ')}; ${issued.rateTier}]\n${issued.key}\n(shown once)`,
      );
    }
    case 'keys list': {
      const keys = await api.call<ApiKey[]>('GET', '/admin/api-keys?limit=100');
      const lines = keys.map(
        (k) =>
          `${k.id}  ${k.keyPrefix}...  ${k.environment}  [${k.scopes.join(',')}]  ${k.rateTier}  ${k.status}  ${k.name}`,
      );
      return print(keys, lines.join('\n') || 'No keys.');
    }
    case 'keys revoke': {
      const revoked = await api.call<ApiKey>(
        'POST',
        `/admin/api-keys/${encodeURIComponent(opts.key as string)}/revoke`,
      );
      return print(revoked, `Revoked key ${revoked.id}`);
    }
    case 'feeds export':
      return exportFeed(api, optional(opts, 'out'), print);
    default:
      throw new CliError(`${key} needs the database itself: stop the server and run it again`);
  }
}
