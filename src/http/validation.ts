import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { ErrorDetail } from '../core/errors.js';

function makeAjv(options: Options) {
  const ajv = new Ajv({
    allErrors: true,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    ...options,
  });
  addFormats.default(ajv);
  // What PostgreSQL's timestamptz and a JavaScript Date both hold: years 1-9999, a real instant.
  // RFC 3339 also allows a leap second (23:59:60) and year 0000, which neither can store.
  const dateTime = ajv.formats['date-time'] as { validate: (v: string) => boolean };
  const date = ajv.formats.date as { validate: (v: string) => boolean };
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (v: string) => dateTime.validate(v) && storableInstant(v),
  });
  ajv.addFormat('date', {
    type: 'string',
    validate: (v: string) => date.validate(v) && storableInstant(`${v}T00:00:00Z`),
  });
  return ajv;
}

/** A date-time a Date parses to the same wall clock second, in years 1-9999. */
function storableInstant(text: string): boolean {
  const year = Number(text.slice(0, 4));
  if (year < 1 || year > 9999) return false;
  if (/T\d{2}:\d{2}:60/i.test(text)) return false;
  return !Number.isNaN(Date.parse(text));
}

// Bodies are JSON and typed: "5" is not a number. Query strings, paths and headers are text,
// so their numbers and booleans are coerced.
const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: 'array' });

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema) as ReturnType<FastifySchemaCompiler<object>>;

export interface AjvLikeError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** Set when the failing value is a key of the object (`propertyNames`). */
  propertyName?: string;
}

const PART_PREFIX: Record<string, string> = {
  body: '',
  querystring: 'query.',
  params: 'path.',
  headers: 'header.',
};

/** `/items/0/productId` in the body -> `items.0.productId`; query fields get a `query.` prefix. */
function validationDetail(part: string, e: AjvLikeError): ErrorDetail {
  const segments = e.instancePath.split('/').filter(Boolean);
  if (e.keyword === 'required') segments.push(String(e.params.missingProperty));
  if (e.keyword === 'additionalProperties') segments.push(String(e.params.additionalProperty));
  const field = (PART_PREFIX[part] ?? '') + segments.join('.');
  // A field a `When` rule forbids is the boolean schema `false` (core/schema.ts `Absent`).
  if (e.keyword === 'false schema') {
    const name = field || part;
    return { field: name, rule: 'forbidden', message: `${name} is not allowed here` };
  }
  const message =
    e.keyword === 'additionalProperties'
      ? 'is not a known field'
      : e.keyword === 'required'
        ? 'is required'
        : e.keyword === 'enum'
          ? `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`
          : (e.message ?? 'is invalid');
  const subject = e.propertyName === undefined ? field || part : `${field || part} key "${e.propertyName}"`;
  return { field: field || part, rule: e.keyword, message: `${subject} ${message}` };
}

const UMBRELLAS = new Set(['anyOf', 'oneOf', 'if']);

/** Ajv errors as error details; anyOf/oneOf/if umbrella errors are dropped when specific ones exist. */
export function validationDetails(part: string, errors: readonly AjvLikeError[]): ErrorDetail[] {
  const details = errors.map((e) => validationDetail(part, e));
  const useful = details.filter((d) => !UMBRELLAS.has(d.rule ?? ''));
  return useful.length > 0 ? useful : details;
}

/** A body validator (no coercion), for JSON that arrives other than as a request body (seed files). */
export function compileBodyValidator(schema: object) {
  return bodyAjv.compile(schema);
}

// Tool arguments are JSON as sent: typed strictly, and never given defaults (the operation
// applies its own, and a stored idempotent request must hash what the caller sent).
const argumentAjv = makeAjv({ coerceTypes: false, useDefaults: false });

/** A validator for the arguments of an MCP tool call, against the tool's input schema. */
export function compileArgumentValidator(schema: object) {
  return argumentAjv.compile(schema);
}
