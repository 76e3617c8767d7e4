import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationFailed } from '../core/errors.js';
import { MAX_JSON_DEPTH } from './limits.js';

// Input we cannot store or hash, refused before validation as 400 validation_failed. All were
// 500s found by the fuzz suite and the adversarial runs (docs/reliability.md):
// - U+0000 (`rule: characters`): PostgreSQL text cannot hold it; the statement failed (22021).
// - A lone UTF-16 surrogate (JSON `"\ud800"`, `rule: characters`): not valid Unicode; the RFC 8785
//   canonical form behind the Idempotency-Key request hash refuses it.
// - JSON nested deeper than MAX_JSON_DEPTH (`rule: maxDepth`): the request hash canonicalises
//   recursively and overflowed the stack on `[` x100,000 (every body without a schema, and the
//   free-JSON policy `condition`).
// Checked: path and query parameters, the JSON body (keys and values, at any depth) and the
// Idempotency-Key header. Only parsed JSON is walked: a body kept as raw bytes (the provider
// callback's Buffer, read only once its signature is verified) is not text yet, and walking a
// Buffer as an object cost a second of CPU per MB before any signature was checked.

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
 * An object as JSON.parse or the query parser makes one (its prototype Object.prototype, null, or
 * a prototype without one of its own, as the query parser's), not a Buffer or other class instance.
 */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null;
}

interface Problem {
  field: string;
  rule: 'characters' | 'maxDepth';
  message: string;
}

/**
 * The first problem in parsed JSON `value`: a string (value or key) holding U+0000 or a lone
 * surrogate, or nesting deeper than MAX_JSON_DEPTH. Iterative: a body nested far deeper than the
 * call stack (the body limit allows ~100,000 levels) must not overflow it.
 */
export function jsonProblem(value: unknown, root: string): Problem | undefined {
  const stack: [unknown, string, number][] = [[value, root, 0]];
  while (stack.length > 0) {
    const [v, at, depth] = stack.pop() as [unknown, string, number];
    if (typeof v === 'string') {
      if (badText(v)) return characters(at, v);
      continue;
    }
    const array = Array.isArray(v);
    if (!array && !isPlainObject(v)) continue;
    if (depth >= MAX_JSON_DEPTH) {
      const field = topField(at, root);
      return {
        field,
        rule: 'maxDepth',
        message: `${field} is nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`,
      };
    }
    if (array) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}[${i}]`, depth + 1]);
      continue;
    }
    for (const [key, child] of Object.entries(v).reverse()) {
      const here = at ? `${at}.${key}` : key;
      if (badText(key)) return characters(here, key);
      stack.push([child, here, depth + 1]);
    }
  }
  return undefined;
}

/** The top-level field `at` is in (`condition`, not `condition[0][0]...` 64 levels down). */
function topField(at: string, root: string): string {
  const first = (root ? at.slice(root.length + 1) : at).split(/[.[]/)[0];
  if (!first) return root || 'body';
  return root ? `${root}.${first}` : first;
}

function characters(at: string, text: string): Problem {
  const field = at || 'body';
  return { field, rule: 'characters', message: `${field} ${whatIsWrong(text)}` };
}

/** The first problem of a request's text (Idempotency-Key, path, query, parsed JSON body). */
export function requestProblem(request: FastifyRequest): Problem | undefined {
  const header = request.headers['idempotency-key'];
  if (typeof header === 'string' && badText(header)) return characters('header.idempotency-key', header);
  return (
    jsonProblem(request.params, 'path') ??
    jsonProblem(request.query, 'query') ??
    // Body fields are named without a prefix, as in schema validation errors.
    jsonProblem(request.body, '')
  );
}

/** Throws 400 validation_failed naming the field and the rule when `problem` is one. */
export function refuseProblem(problem: Problem | undefined): void {
  if (problem) throw validationFailed(problem.field, problem.rule, problem.message);
}

export function registerTextGuard(app: FastifyInstance) {
  app.addHook('preValidation', async (request) => refuseProblem(requestProblem(request)));
}
