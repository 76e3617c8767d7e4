import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Queryable } from '../db/client.js';
import { openAcpFeed } from '../modules/feeds/index.js';

export interface FeedExport {
  /** Products written (lines). */
  products: number;
  bytes: number;
  /** The file written; null: standard output. */
  out: string | null;
}

/**
 * `feeds export`: the tenant's ACP product feed (the same lines as GET /admin/feeds/acp) to
 * standard output, or to `out`. A file is written under a temporary name and renamed when whole,
 * so a failed export never leaves a file that looks complete.
 */
export async function exportAcpFeed(
  db: Queryable,
  tenantId: string,
  publicBaseUrl: string,
  out: string | undefined,
): Promise<FeedExport> {
  const lines = await openAcpFeed(db, tenantId, { publicBaseUrl, now: new Date() });
  const counted = { products: 0, bytes: 0 };
  async function* count() {
    for await (const chunk of lines) {
      for (let i = chunk.indexOf('\n'); i >= 0; i = chunk.indexOf('\n', i + 1)) counted.products++;
      counted.bytes += Buffer.byteLength(chunk);
      yield chunk;
    }
  }
  if (out === undefined) {
    await pipeline(Readable.from(count(), { highWaterMark: 2 }), process.stdout, { end: false });
    return { ...counted, out: null };
  }
  const target = path.resolve(out);
  const partial = `${target}.${randomBytes(4).toString('hex')}.partial`;
  try {
    await pipeline(Readable.from(count(), { highWaterMark: 2 }), createWriteStream(partial));
    await rename(partial, target);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return { ...counted, out: target };
}
