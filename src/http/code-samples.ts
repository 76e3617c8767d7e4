/**
 * `x-codeSamples` for every operation, generated from the operation itself so they cannot drift:
 * curl with the method, the path, the headers it needs (the key when it has a scope, JSON and an
 * `Idempotency-Key` on writes) and the request body's example; and the same call through our
 * typed client, `@commerce-agent/client` (openapi-fetch path calls). The reference page shows
 * them beside each operation. Path parameters and required query parameters without an example
 * are shell variables named after them (`$ID`, `$ITEM_ID`) in curl, and the same names as
 * placeholder strings in TypeScript.
 */

type Json = Record<string, unknown>;
type Parameter = { name?: string; in?: string; required?: boolean; schema?: Json; example?: unknown };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, Json> };
  'x-required-scope'?: string | null;
  'x-codeSamples'?: unknown;
};

const WRITE_METHODS = new Set(['post', 'put', 'patch']);
const upperSnake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

/** The body example the document gives: the media's `example`, its first named one, or the schema's. */
function bodyExample(operation: Operation, components: Json): unknown {
  const media = operation.requestBody?.content?.['application/json'];
  if (!media) return undefined;
  if ('example' in media) return media.example;
  const named = Object.values((media.examples ?? {}) as Record<string, { value?: unknown }>)[0];
  if (named && 'value' in named) return named.value;
  let schema = media.schema as Json | undefined;
  const target = typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;
  if (target) schema = (components.schemas as Record<string, Json> | undefined)?.[target];
  return (schema?.examples as unknown[] | undefined)?.[0];
}

/** Required query parameters: their example, or none (the caller names a placeholder). */
function requiredQuery(operation: Operation) {
  return (operation.parameters ?? [])
    .filter((p) => p.in === 'query' && p.required && p.name)
    .map((p) => {
      const example = p.example ?? (p.schema?.examples as unknown[] | undefined)?.[0] ?? p.schema?.default;
      return { name: p.name as string, example: example === undefined ? undefined : String(example) };
    });
}

/** A TypeScript string literal in single quotes. */
const tsString = (text: string) => `'${text.replace(/['\\]/g, '\\$&')}'`;

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function curlSample(baseUrl: string, method: string, path: string, operation: Operation, body: unknown) {
  const query = requiredQuery(operation);
  const url =
    baseUrl +
    path.replace(/\{(\w+)\}/g, (_m, name: string) => `$${upperSnake(name)}`) +
    (query.length
      ? `?${query.map(({ name, example }) => `${name}=${example === undefined ? `$${upperSnake(name)}` : encodeURIComponent(example)}`).join('&')}`
      : '');
  const lines = [`curl -X ${method.toUpperCase()} "${url}"`];
  if (operation['x-required-scope']) lines.push('-H "Authorization: Bearer $API_KEY"');
  if (WRITE_METHODS.has(method)) {
    if (body !== undefined) lines.push("-H 'Content-Type: application/json'");
    lines.push('-H "Idempotency-Key: $(openssl rand -hex 16)"');
  }
  if (body !== undefined) lines.push(`-d ${shellQuote(JSON.stringify(body, null, 2))}`);
  return lines.join(' \\\n  ');
}

/** A JSON value as TypeScript source, indented to sit inside the call's options. */
const asSource = (value: unknown, indent: string) =>
  JSON.stringify(value, null, 2)
    .replace(/"([A-Za-z_$][\w$]*)":/g, '$1:')
    .replace(/\n/g, `\n${indent}`);

function typescriptSample(
  baseUrl: string,
  method: string,
  path: string,
  operation: Operation,
  body: unknown,
) {
  const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
  const query = requiredQuery(operation);
  const params: string[] = [];
  if (pathParams.length)
    params.push(`path: { ${pathParams.map((p) => `${p}: '${upperSnake(p)}'`).join(', ')} }`);
  if (query.length)
    params.push(
      `query: { ${query.map(({ name, example }) => `${name}: ${tsString(example ?? upperSnake(name))}`).join(', ')} }`,
    );
  const options: string[] = [];
  if (params.length) options.push(`  params: { ${params.join(', ')} },`);
  if (body !== undefined) options.push(`  body: ${asSource(body, '  ')},`);
  const call = options.length
    ? `await api.${method.toUpperCase()}('${path}', {\n${options.join('\n')}\n});`
    : `await api.${method.toUpperCase()}('${path}');`;
  return [
    "import { createCommerceClient } from '@commerce-agent/client';",
    '',
    `const api = createCommerceClient({ baseUrl: '${baseUrl}', apiKey: process.env.API_KEY! });`,
    `const { data, error } = ${call}`,
  ].join('\n');
}

/** Adds curl and TypeScript samples to every operation that has none of its own. */
export function addCodeSamples<T extends object>(document: T): T {
  const doc = document as {
    paths?: Record<string, Record<string, Operation>>;
    servers?: { url?: string }[];
    components?: Json;
  };
  const baseUrl = (doc.servers?.[0]?.url ?? '').replace(/\/$/, '');
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation['x-codeSamples']) continue;
      const body = bodyExample(operation, doc.components ?? {});
      operation['x-codeSamples'] = [
        { lang: 'Shell', label: 'curl', source: curlSample(baseUrl, method, path, operation, body) },
        {
          lang: 'TypeScript',
          label: 'TypeScript (@commerce-agent/client)',
          source: typescriptSample(baseUrl, method, path, operation, body),
        },
      ];
    }
  }
  return document;
}
