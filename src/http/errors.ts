import { Type } from 'typebox';
import { ERROR_CODES, type ErrorCode } from '../core/errors.js';
import { StringEnum } from '../core/schema.js';

export const ErrorDetailSchema = Type.Object(
  {
    field: Type.Optional(
      Type.String({ description: 'Request location of the problem, e.g. `name` or `query.since`.' }),
    ),
    rule: Type.Optional(
      Type.String({ description: 'The rule that failed, e.g. `maxLength`, `format`, `required`.' }),
    ),
    argument: Type.Optional(
      Type.String({
        description:
          'The same place as the MCP tool argument it came from, named as the tool names it: `id` for `path.id`, `since` for `query.since`, `body.name` for `name`, `idempotencyKey` for the header.',
      }),
    ),
    message: Type.String(),
  },
  { $id: 'ErrorDetail' },
);

export const ErrorBodySchema = Type.Object(
  {
    error: Type.String({ description: 'Human-readable message.' }),
    code: StringEnum(Object.keys(ERROR_CODES) as ErrorCode[], {
      description: 'Stable machine-readable error code.',
    }),
    // A reference, so the document's ErrorDetail component is the one place describing it.
    details: Type.Optional(Type.Array(Type.Ref('ErrorDetail'))),
    retryAfterSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'When to retry, in seconds: the Retry-After header, in the body.',
      }),
    ),
    nextActions: Type.Optional(
      Type.Array(Type.Ref('NextAction'), {
        description: 'How to recover, where there is a way (e.g. `createCart` for a checked-out cart).',
      }),
    ),
    requestId: Type.String({
      description: 'Echoed in the X-Request-Id header; quote it when reporting a problem.',
    }),
  },
  {
    $id: 'Error',
    description: 'Body of every non-2xx response.',
    examples: [
      {
        error: 'Validation failed: currency must match pattern "^[A-Z]{3}$"',
        code: 'validation_failed',
        details: [{ field: 'currency', rule: 'pattern', message: 'must match pattern "^[A-Z]{3}$"' }],
        requestId: '0f9b8c1e-3c2a-4d7e-9a51-2b7f0c6d8e10',
      },
    ],
  },
);

const STATUS_TEXT: Record<number, string> = {
  400: 'Validation failed: the error names the field and the rule.',
  401: 'Missing, malformed, unknown, revoked or other-environment API key.',
  403: 'The key lacks the required scope, or a policy blocks the operation.',
  404: 'Not found in this tenant.',
  409: 'Conflicts with the current state of the resource, or a request with the same Idempotency-Key is still running.',
  413: 'Request body larger than the limit.',
  415: 'Content-Type is not application/json.',
  422: 'Idempotency-Key reused with a different request body.',
  429: 'Rate limit exceeded; honour Retry-After.',
  500: 'Unexpected server error.',
  501: 'The tenant’s billing system lacks a capability the operation needs (`capability_unavailable` names it).',
  502: 'An upstream billing system failed.',
  503: 'Database unreachable, or every database connection busy; retry after Retry-After seconds.',
};

/** Response schemas for the given error statuses, for a route's `response` map. */
export function errorResponses(...statuses: number[]) {
  const out: Record<number, unknown> = {};
  for (const status of statuses) {
    out[status] = Type.Ref('Error', { description: STATUS_TEXT[status] ?? 'Error.' });
  }
  return out;
}
