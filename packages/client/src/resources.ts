import { errorFromResponse } from './errors.js';
import { type Resources, resourceOperations } from './generated/resources.js';
import type { OperationSpec, RequestOptions } from './operation-types.js';
import { ListCall, type ListPage } from './pagination.js';
import type { Transport } from './transport.js';

/** A query string as the service reads it: arrays as repeated keys (`tag=a&tag=b`), nothing for undefined. */
export function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      params.append(key, typeof item === 'object' ? JSON.stringify(item) : String(item));
    }
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The answer's body: parsed JSON when it says JSON, else its text; undefined when empty. */
async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  if (!(response.headers.get('content-type') ?? '').includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

type Call = (
  spec: OperationSpec,
  pathValues: readonly unknown[],
  input: unknown,
  options: RequestOptions | undefined,
) => Promise<unknown>;

/** Sends one operation: fills the path, adds the query or JSON body, and throws an `ApiError` unless 2xx. */
function createCall(baseUrl: string, transport: Transport): Call {
  return async (spec, pathValues, input, options = {}) => {
    let path = spec.path;
    spec.pathParams.forEach((name, i) => {
      const value = pathValues[i];
      if (value === undefined || value === null || value === '') {
        throw new TypeError(`${spec.operationId}: the path parameter "${name}" is missing`);
      }
      path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    });
    const query = (spec.input === 'query' ? input : options.query) as Record<string, unknown> | undefined;
    const headers = new Headers(options.headers);
    if (options.idempotencyKey) headers.set('idempotency-key', options.idempotencyKey);
    const withBody = spec.input === 'body' && input !== undefined;
    if (withBody) headers.set('content-type', 'application/json');
    const request = new Request(`${baseUrl}${path}${queryString(query)}`, {
      method: spec.method,
      headers,
      ...(withBody ? { body: JSON.stringify(input) } : {}),
    });
    const response = await transport(request, options);
    const body = await readBody(response);
    if (!response.ok) throw errorFromResponse(response, body);
    return body;
  };
}

/**
 * The resource methods (`client.orders.create(body)`, `client.orders.get(id)`, ...), built from
 * the generated operation table: path parameters first, then the body or query, then options.
 */
export function createResources(baseUrl: string, transport: Transport): Resources {
  const call = createCall(baseUrl, transport);
  const root: Record<string, unknown> = {};
  for (const spec of resourceOperations) {
    let group = root;
    for (const name of spec.group) {
      group[name] ??= {};
      group = group[name] as Record<string, unknown>;
    }
    const count = spec.pathParams.length;
    group[spec.name] = (...args: unknown[]) => {
      const pathValues = args.slice(0, count);
      const input = spec.input === 'none' ? undefined : args[count];
      const options = (spec.input === 'none' ? args[count] : args[count + 1]) as RequestOptions | undefined;
      if (!spec.list) return call(spec, pathValues, input, options);
      const fetchPage = (query: Record<string, unknown>) =>
        call(spec, pathValues, query, options) as Promise<ListPage<unknown>>;
      return new ListCall(fetchPage, (input ?? {}) as Record<string, unknown>);
    };
  }
  return root as unknown as Resources;
}
