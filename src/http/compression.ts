import compress from '@fastify/compress';
import type { TypedApp } from './types.js';

/**
 * Response compression (`@fastify/compress`): brotli or gzip, as the client's Accept-Encoding
 * prefers, for JSON (the OpenAPI document is 2.5 MB, a list page tens of KB), the JSON Lines
 * product feed, HTML and text, from 1 KB up. Streamed bodies (GET /orders without a page, the
 * feed) are compressed as they stream, a chunk at a time, so nothing is held whole.
 * `text/event-stream` is never compressed (an event must reach the client when it is sent, not
 * when a compressor's buffer fills). Request bodies are not decompressed: the API takes plain JSON.
 * The reference page's static files are compressed once, ahead, and opt out (`compress: false`).
 */
export async function registerCompression(app: TypedApp) {
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    encodings: ['br', 'gzip'],
    customTypes: /^text\/(?!event-stream)|(?:\+|\/)json(?:;|$)|\/x-ndjson(?:;|$)/,
  });
}
