import { ERROR_CODES, type ErrorCode } from '../core/errors.js';
import { ERROR_EXAMPLES, GENERIC_CODES } from './error-examples.js';
import { IDEMPOTENCY_RETENTION_HOURS, RATE_LIMIT_WINDOW_SECONDS } from './limits.js';

/**
 * What the document says about every response beyond its body: the headers the server sets
 * (`X-Request-Id` on all, `X-RateLimit-*` from the gate, `Retry-After` where an answer says when
 * to retry, `X-Idempotency-Replayed` on writes) and, for each error response, named examples with
 * the codes that status really carries (not one example for all). Added to the built document,
 * as references to `components.headers` and `components.examples`, so 1,000-odd responses share
 * a few definitions.
 */

type Json = Record<string, unknown>;
type Response = { description?: string; headers?: Json; content?: Record<string, Json> };
type Operation = { description?: string; responses?: Record<string, Response> };

const ERROR_REF = '#/components/schemas/Error';
const WRITE_METHODS = new Set(['post', 'put', 'patch']);
const REQUEST_ID = '0f9b8c1e-3c2a-4d7e-9a51-2b7f0c6d8e10';

const integer = (description: string, example: number) => ({
  description,
  schema: { type: 'integer', minimum: 0 },
  example,
});

export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description:
      'The request’s id: yours when you sent a sane `X-Request-Id` (1-128 of `A-Za-z0-9._:-`), else a new UUID. ' +
      'Also the error body’s `requestId`; quote it when reporting a problem.',
    schema: { type: 'string', minLength: 1, maxLength: 128 },
    example: REQUEST_ID,
  },
  'X-RateLimit-Limit': integer(
    `Requests allowed per ${RATE_LIMIT_WINDOW_SECONDS}-second rolling window: the key's rate tier (per client IP without a key).`,
    60,
  ),
  'X-RateLimit-Remaining': integer('Requests left in the current window.', 59),
  'X-RateLimit-Reset': integer(
    'Unix time in seconds when the oldest counted request leaves the window.',
    1796083200,
  ),
  'Retry-After': integer(
    'Seconds to wait before retrying (also `retryAfterSeconds` in the error body). Sent with 429, with 503, ' +
      'with 502 `billing_unavailable` and with 409 answers that clear by themselves (`idempotency_in_flight`).',
    12,
  ),
  'X-Idempotency-Replayed': {
    description:
      `\`true\` when this is the stored answer to an earlier request with the same \`Idempotency-Key\`, method, path ` +
      `and body (kept ${IDEMPOTENCY_RETENTION_HOURS} h): the operation did not run again. Absent otherwise.`,
    schema: { type: 'string', enum: ['true'] },
    example: 'true',
  },
} as const;

type HeaderName = keyof typeof RESPONSE_HEADERS;
const ref = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });
const RETRY_AFTER_STATUSES = new Set(['409', '429', '502', '503']);

function headersFor(status: string, write: boolean): Json {
  const names: HeaderName[] = [
    'X-Request-Id',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
  ];
  if (RETRY_AFTER_STATUSES.has(status)) names.push('Retry-After');
  if (write && status.startsWith('2')) names.push('X-Idempotency-Replayed');
  return Object.fromEntries(names.map((name) => [name, ref(name)]));
}

const isErrorCode = (word: string): word is ErrorCode => Object.hasOwn(ERROR_CODES, word);

/** The codes an operation's description names in backticks (`409 \`cart_checked_out\``). */
function documentedCodes(description: string): ErrorCode[] {
  return [...description.matchAll(/`([a-z_]+)`/g)].map((m) => m[1] as string).filter(isErrorCode);
}

/**
 * The codes shown for one error status of one operation: those its description names for that
 * status, then the ones the platform raises there for any route (a 409 or 422 of a write is the
 * idempotency layer's; elsewhere the status's own generic code).
 */
export function codesFor(status: number, description: string, write: boolean): ErrorCode[] {
  const documented = documentedCodes(description).filter((code) => ERROR_CODES[code] === status);
  let generic = GENERIC_CODES[status] ?? [];
  if (!write && (status === 409 || status === 422)) generic = [];
  const codes = [...new Set([...documented, ...generic])];
  if (codes.length) return codes;
  const first = (Object.keys(ERROR_CODES) as ErrorCode[]).find((code) => ERROR_CODES[code] === status);
  return first ? [first] : [];
}

/** `components.examples`: the error body of each code shown, named by the code. */
export function errorExampleComponents(codes: Iterable<ErrorCode>) {
  return Object.fromEntries(
    [...codes].sort().map((code) => {
      const { summary, body } = ERROR_EXAMPLES[code];
      const { error, ...rest } = body;
      return [
        code,
        {
          summary: `${ERROR_CODES[code]} ${code}: ${summary}`,
          value: { error, code, ...rest, requestId: REQUEST_ID },
        },
      ];
    }),
  );
}

function addErrorExamples(
  response: Response,
  status: string,
  operation: Operation,
  write: boolean,
  shown: Set<ErrorCode>,
) {
  const media = response.content?.['application/json'];
  if (!media || (media.schema as { $ref?: string } | undefined)?.$ref !== ERROR_REF) return;
  const codes = codesFor(Number(status), operation.description ?? '', write);
  if (!codes.length) return;
  for (const code of codes) shown.add(code);
  media.examples = Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }]));
}

/** Adds the response headers and the error examples to every operation of the document. */
export function addResponseHeadersAndErrorExamples<T extends object>(document: T): T {
  const doc = document as { paths?: Record<string, Record<string, Operation>>; components?: Json };
  const shown = new Set<ErrorCode>();
  for (const item of Object.values(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      const write = WRITE_METHODS.has(method);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = { ...headersFor(status, write), ...response.headers };
        if (!status.startsWith('2')) addErrorExamples(response, status, operation, write, shown);
      }
    }
  }
  doc.components = {
    ...doc.components,
    headers: { ...(doc.components?.headers as Json | undefined), ...RESPONSE_HEADERS },
    examples: { ...(doc.components?.examples as Json | undefined), ...errorExampleComponents(shown) },
  };
  return document;
}
