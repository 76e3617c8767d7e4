/**
 * Generates the typed client's resource methods (`packages/client/src/generated/resources.ts`)
 * from the served OpenAPI document: `client.orders.create(body)`, `client.orders.get(id)`,
 * `client.orders.list(query)`, one method per operation under /api/v1, grouped by resource.
 *
 * The names come from the document alone, so the output is the same on every machine:
 * - the group is the path's first fixed segment (`/orders/{id}` -> `orders`), and under
 *   `/admin/` the segment after it (`/admin/products` -> `admin.products`), in camelCase;
 * - the method is the operationId without the group's noun right after the verb
 *   (`createOrder` -> `create`, `addCartItem` -> `addItem`), the rest when the verb is the noun
 *   (`previewPlanChange` in `preview` -> `planChange`), or the whole operationId when the noun is
 *   not there (`resolvePrice`) or two operations of a group would get one name.
 * Groups and methods are sorted by name, so reordering routes does not reorder the file.
 */

const API_PREFIX = '/api/v1/';
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Names the client already has at the top level (openapi-fetch's calls, followNextAction). */
const RESERVED = new Set([
  ...['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'use', 'eject'],
  'followNextAction',
]);

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}

interface Operation {
  operationId?: string;
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, unknown> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation | Parameter[] | undefined>>;
}

export interface ResourceOperation {
  group: string[];
  name: string;
  operationId: string;
  method: Uppercase<(typeof HTTP_METHODS)[number]>;
  path: string;
  summary: string;
  pathParams: string[];
  input: 'body' | 'query' | 'none';
  inputRequired: boolean;
  list: boolean;
}

const camel = (segment: string) =>
  segment.replace(/\.json$/, '').replace(/[-_.]+([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

const singular = (noun: string) =>
  noun.endsWith('ies') ? `${noun.slice(0, -3)}y` : noun.endsWith('s') ? noun.slice(0, -1) : noun;

/** `['orders']`, `['admin', 'products']`: where the operation's method sits. */
export function groupOf(path: string): string[] {
  const fixed = path
    .slice(API_PREFIX.length)
    .split('/')
    .filter((s) => s !== '' && !s.startsWith('{'));
  const [first, second] = fixed;
  if (!first) throw new Error(`${path}: no fixed segment to name a group after`);
  return first === 'admin' && second ? ['admin', camel(second)] : [camel(first)];
}

/** The operationId without the group's noun right after its verb, e.g. `addCartItem` in `carts` -> `addItem`. */
export function methodNameOf(operationId: string, group: readonly string[]): string {
  const noun = (group.at(-1) ?? '').toLowerCase();
  const nouns = new Set([noun, singular(noun)]);
  const words = operationId.split(/(?=[A-Z])/);
  // The noun as the verb (`previewPlanChange` in `preview`): the rest names the method.
  const rest = words.slice(1).join('');
  if (nouns.has((words[0] ?? '').toLowerCase()) && rest !== '')
    return rest.charAt(0).toLowerCase() + rest.slice(1);
  for (let end = words.length; end > 1; end--) {
    if (nouns.has(words.slice(1, end).join('').toLowerCase())) {
      return `${words[0]}${words.slice(end).join('')}`;
    }
  }
  return operationId;
}

function pathParamsOf(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

function describe(path: string, method: string, operation: Operation, pathLevel: Parameter[]) {
  if (!operation.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
  const parameters = [...pathLevel, ...(operation.parameters ?? [])];
  const query = parameters.filter((p) => p.in === 'query');
  const hasBody = Boolean(operation.requestBody?.content?.['application/json']);
  const group = groupOf(path);
  // A cursor list: `limit` and `cursor` in, an array of items as `data` out (not a paged part of one object).
  const answer = operation.responses?.['200']?.content?.['application/json']?.schema;
  const list =
    method === 'get' &&
    ['limit', 'cursor'].every((n) => query.some((p) => p.name === n)) &&
    answer?.properties?.data?.type === 'array';
  return {
    group,
    name: methodNameOf(operation.operationId, group),
    operationId: operation.operationId,
    method: method.toUpperCase() as ResourceOperation['method'],
    path,
    summary: operation.summary ?? '',
    pathParams: pathParamsOf(path),
    input: hasBody ? 'body' : query.length > 0 ? 'query' : 'none',
    inputRequired: hasBody ? operation.requestBody?.required === true : query.some((p) => p.required),
    list,
  } satisfies ResourceOperation;
}

/** Every operation under /api/v1 with its group and method name, sorted by group then name. */
export function resourceOperations(document: OpenApiDocument): ResourceOperation[] {
  const found: ResourceOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith(API_PREFIX)) continue;
    const pathLevel = (item.parameters as Parameter[] | undefined) ?? [];
    for (const method of HTTP_METHODS) {
      const operation = item[method] as Operation | undefined;
      if (operation) found.push(describe(path, method, operation, pathLevel));
    }
  }
  // Two operations of one group with one name keep their whole operationIds.
  const key = (op: ResourceOperation) => `${op.group.join('.')}.${op.name}`;
  const counts = new Map<string, number>();
  for (const op of found) counts.set(key(op), (counts.get(key(op)) ?? 0) + 1);
  for (const op of found) if ((counts.get(key(op)) ?? 0) > 1) op.name = op.operationId;
  const groups = new Set(found.map((op) => op.group[0] as string));
  for (const name of groups) if (RESERVED.has(name)) throw new Error(`group "${name}" would hide ${name}()`);
  // Code-unit order, not a locale's: the same on every machine.
  return found.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

const interfaceName = (group: readonly string[]) =>
  `${group.map((g) => g.charAt(0).toUpperCase() + g.slice(1)).join('')}Resource`;

function signature(op: ResourceOperation): string {
  const id = `'${op.operationId}'`;
  const args = op.pathParams.map((p) => `${camel(p)}: PathOf<${id}>['${p}']`);
  if (op.input === 'body') args.push(`body${op.inputRequired ? '' : '?'}: BodyOf<${id}>`);
  if (op.input === 'query') args.push(`query${op.inputRequired ? '' : '?'}: QueryOf<${id}>`);
  args.push('options?: RequestOptions');
  const result = op.list ? `ListCall<ResultOf<${id}>>` : `Promise<ResultOf<${id}>>`;
  const summary = op.summary.replaceAll('*/', '* /');
  return [
    `  /** ${summary ? `${summary}: ` : ''}\`${op.method} ${op.path}\` (\`${op.operationId}\`). */`,
    `  ${op.name}(${args.join(', ')}): ${result};`,
  ].join('\n');
}

/** The text of `generated/resources.ts`: the operation table and the typed interface of each group. */
export function resourcesModule(document: OpenApiDocument): string {
  const operations = resourceOperations(document);
  const byGroup = new Map<string, ResourceOperation[]>();
  for (const op of operations) {
    const name = op.group.join('.');
    byGroup.set(name, [...(byGroup.get(name) ?? []), op]);
  }
  const out: string[] = [
    '/**',
    ' * Generated by `npm run client:generate` (scripts/client-resources.ts) from the served OpenAPI',
    ' * document. Do not edit: change the routes and regenerate.',
    ' */',
    "import type { ListCall } from '../pagination.js';",
    "import type { BodyOf, OperationSpec, PathOf, QueryOf, RequestOptions, ResultOf } from '../operation-types.js';",
    '',
    '/** Every resource method: its group, name, operation, method, path, path parameters and input. */',
    'export const resourceOperations: readonly OperationSpec[] = [',
  ];
  for (const op of operations) {
    const { group, name, operationId, method, path, pathParams, input, list } = op;
    out.push(`  ${JSON.stringify({ group, name, operationId, method, path, pathParams, input, list })},`);
  }
  out.push('];', '');
  for (const [, ops] of byGroup) {
    out.push(`export interface ${interfaceName((ops[0] as ResourceOperation).group)} {`);
    out.push(ops.map(signature).join('\n'));
    out.push('}', '');
  }
  const top = [...new Set(operations.map((op) => op.group[0] as string))];
  const admin = [...byGroup.values()].filter((ops) => ops[0]?.group[0] === 'admin');
  if (admin.length > 0) {
    out.push('/** The admin resources: `client.admin.products`, `client.admin.apiKeys`, ... */');
    out.push('export interface AdminResources {');
    for (const ops of admin) {
      const group = (ops[0] as ResourceOperation).group;
      out.push(`  ${group[1]}: ${interfaceName(group)};`);
    }
    out.push('}', '');
  }
  out.push('/** The resource methods of the client, by group. */');
  out.push('export interface Resources {');
  for (const name of top)
    out.push(`  ${name}: ${name === 'admin' ? 'AdminResources' : interfaceName([name])};`);
  out.push('}', '');
  return out.join('\n');
}
