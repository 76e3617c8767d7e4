import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationFailed } from './errors.js';

// PostgreSQL text cannot hold U+0000: a NUL anywhere in a value that reaches a query fails the
// statement (SQLSTATE 22021), which used to surface as 500. Found by the fuzz suite
// (test/reliability/fuzz.test.ts). Every input is checked before validation: path and query
// parameters, the JSON body (keys and values, at any depth) and the Idempotency-Key header.

const MAX_DEPTH = 64;

/** The location of the first string holding U+0000 in `value`, or undefined. */
function findNul(value: unknown, at: string, depth = 0): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? at : undefined;
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
    if (key.includes('\u0000')) return here;
    const found = findNul(v, here, depth + 1);
    if (found) return found;
  }
  return undefined;
}

export function nulCharacterLocation(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (typeof header === 'string' && header.includes('\u0000')) return 'header.idempotency-key';
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
