import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A static file held in memory with its compressed copies (the reference page, the console). */
export interface Asset {
  type: string;
  etag: string;
  /** The body as stored and its compressed copies, by Content-Encoding. */
  bodies: { identity: Buffer; br: Buffer; gzip: Buffer };
}

const etagOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

export function asset(type: string, body: Buffer): Asset {
  return {
    type,
    etag: etagOf(body),
    bodies: {
      identity: body,
      br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
      gzip: gzipSync(body, { level: 9 }),
    },
  };
}

export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Sends a file, compressed when the client takes it, or 304 when the client has this version. */
export function sendAsset(request: FastifyRequest, reply: FastifyReply, file: Asset, cacheControl: string) {
  reply.header('Cache-Control', cacheControl).header('ETag', file.etag).header('Vary', 'Accept-Encoding');
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  const accepted = String(request.headers['accept-encoding'] ?? '');
  const encoding = /\bbr\b/.test(accepted) ? 'br' : /\bgzip\b/.test(accepted) ? 'gzip' : 'identity';
  if (encoding !== 'identity') reply.header('Content-Encoding', encoding);
  return reply.type(file.type).send(file.bodies[encoding]);
}
