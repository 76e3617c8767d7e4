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
/** What is wrong with `s`, said plainly (undefined: nothing). */
function whatIsWrong(s: string): string | undefined {
  if (s.includes('\u0000')) return 'must not contain U+0000 (NUL)';
  if (LONE_SURROGATE.test(s))
    return 'must be valid Unicode: it holds a lone UTF-16 surrogate (a \\ud800-\\udfff escape without its pair)';
  return undefined;
}

const badText = (s: string) => whatIsWrong(s) !== undefined;

/**
 * The location of the first string (value or key) holding U+0000 or a lone surrogate in
 * `value`, with that string, or undefined. Iterative: a body nested far deeper than the call
 * stack (the body limit allows ~100,000 levels) must not overflow it.
 */
function findBadText(value: unknown, root: string): { at: string; text: string } | undefined {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [v, at] = stack.pop() as [unknown, string];
    if (typeof v === 'string') {
      if (badText(v)) return { at, text: v };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}[${i}]`]);
    } else if (v !== null && typeof v === 'object') {
      for (const [key, child] of Object.entries(v).reverse()) {
        const here = at ? `${at}.${key}` : key;
        if (badText(key)) return { at: here, text: key };
        stack.push([child, here]);
      }
    }
  }
  return undefined;
}

/** Where the first bad text is, and what is wrong with it. */
export function badTextLocation(request: FastifyRequest): { field: string; problem: string } | undefined {
  const header = request.headers['idempotency-key'];
  const found =
    typeof header === 'string' && badText(header)
      ? { at: 'header.idempotency-key', text: header }
      : (findBadText(request.params, 'path') ??
        findBadText(request.query, 'query') ??
        // Body fields are named without a prefix, as in schema validation errors.
        findBadText(request.body, ''));
  if (!found) return undefined;
  return { field: found.at || 'body', problem: whatIsWrong(found.text) as string };
}

export function registerTextGuard(app: FastifyInstance) {
  app.addHook('preValidation', async (request) => {
    const bad = badTextLocation(request);
    if (bad) throw validationFailed(bad.field, 'characters', `${bad.field} ${bad.problem}`);
  });
}
