import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationFailed } from '../core/errors.js';

// Text we cannot store or hash, refused before validation as 400 validation_failed
// (`rule: characters`). Both were 500s found by the fuzz suite (test/reliability/fuzz.test.ts):
// - U+0000: PostgreSQL text cannot hold it; the statement failed (SQLSTATE 22021).
// - A lone UTF-16 surrogate (JSON `"\ud800"`): not valid Unicode; the RFC 8785 canonical form
//   behind the Idempotency-Key request hash refuses it (and a driver would store U+FFFD).
// Checked: path and query parameters, the JSON body (keys and values, at any depth) and the
// Idempotency-Key header.

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const badText = (s: string) => s.includes('\u0000') || LONE_SURROGATE.test(s);

/**
 * The location of the first string (value or key) holding U+0000 or a lone surrogate in
 * `value`, or undefined. Iterative: a body nested far deeper than the call stack (the body limit
 * allows ~100,000 levels) must not overflow it.
 */
function findBadText(value: unknown, root: string): string | undefined {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [v, at] = stack.pop() as [unknown, string];
    if (typeof v === 'string') {
      if (badText(v)) return at;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}[${i}]`]);
    } else if (v !== null && typeof v === 'object') {
      for (const [key, child] of Object.entries(v).reverse()) {
        const here = at ? `${at}.${key}` : key;
        if (badText(key)) return here;
        stack.push([child, here]);
      }
    }
  }
  return undefined;
}

export function nulCharacterLocation(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (typeof header === 'string' && badText(header)) return 'header.idempotency-key';
  return (
    findBadText(request.params, 'path') ??
    findBadText(request.query, 'query') ??
    // Body fields are named without a prefix, as in schema validation errors.
    findBadText(request.body, '')
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
