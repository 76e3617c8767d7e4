import type { FastifyReply } from 'fastify';

/** Per-key cacheable for 60 s (DESIGN.md "Caching"): manifest, capabilities, catalog, pricing, shipping. */
export function cacheablePerKey(reply: FastifyReply) {
  reply.header('Cache-Control', 'private, max-age=60');
  reply.header('Vary', 'Authorization');
}
