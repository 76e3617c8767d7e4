import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationFailed } from './errors.js';

// Text we cannot store or hash, refused before validation as 400 validation_failed
// (`rule: characters`). Both were 500s found by the fuzz suite (test/reliability/fuzz.test.ts):
// - U+0000: PostgreSQL text cannot hold it; the statement failed (SQLSTATE 22021).
// - A lone UTF-16 surrogate (JSON `"\ud800"`): not valid Unicode; the RFC 8785 canonical form
//   behind the Idempotency-Key request hash refuses it (and a driver would store U+FFFD).
// Checked: path and query parameters, the JSON body (keys and values, at any depth) and the
// Idempotency-Key header.

// Deep enough for any body under the size limit that other code would walk.
const MAX_DEPTH = 5_000;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const BAD_TEXT = { test: (s: string) => s.includes('\u0000') || LONE_SURROGATE.test(s) };

/** The location of the first string holding U+0000 or a lone surrogate in `value`, or undefined. */
function findNul(value: unknown, at: string, depth = 0): string | undefined {
  if (typeof value === 'string') return BAD_TEXT.test(value) ? at : undefined;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], `${at}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, v] of Object.entries(value)) {
    const here = at ? `${at}.${key}` : key;
    if (BAD_TEXT.test(key)) return here;
    const found = findNul(v, here, depth + 1);
    if (found) return found;
  }
  return undefined;
}

export function nulCharacterLocation(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (typeof header === 'string' && BAD_TEXT.test(header)) return 'header.idempotency-key';
  return (
    findNul(request.params, 'path') ??
    findNul(request.query, 'query') ??
    // Body fields are named without a prefix, as in schema validation errors.
    findNul(request.body, '')
  );
}

export function registerTextGuard(app: FastifyInstance) {
  app.addHook('preValidation', async (request) => {
    const field = nulCharacterLocation(request);
    if (field !== undefined) {
      throw validationFailed(
        field || 'body',
        'characters',
        `${field || 'body'} must not contain U+0000 (NUL)`,
      );
    }
  });
}
