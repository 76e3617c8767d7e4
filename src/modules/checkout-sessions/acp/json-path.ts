// RFC 9535 JSONPath for ACP's `param`: where in the request (or the session) something is.

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const INDEX = /^(0|[1-9][0-9]*)$/;

/** A name-selector or index-selector for one segment (`.name`, `[0]` or `['odd key']`). */
function segment(part: string): string {
  if (INDEX.test(part)) return `[${part}]`;
  if (IDENTIFIER.test(part)) return `.${part}`;
  return `['${part.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}']`;
}

/** `['line_items', 0, 'quantity']` -> `$.line_items[0].quantity`. */
export const jsonPath = (...parts: readonly (string | number)[]): string =>
  `$${parts.map((p) => segment(String(p))).join('')}`;

/**
 * The JSONPath of a request body field as our validation names it (`line_items.0.quantity`), or
 * undefined for a place that is not in the body (`header.api-version`, `path.id`, `query.x`).
 */
export function bodyFieldPath(field: string | undefined): string | undefined {
  if (field === undefined) return undefined;
  if (field === 'body' || field === '') return '$';
  if (/^(header|path|query)(\.|$)/.test(field)) return undefined;
  return jsonPath(...field.split('.'));
}
