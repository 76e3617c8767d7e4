/**
 * OpenAPI `links` from every create (a 201 response) to the operations on what it created, so a
 * client or a tester can follow them without building URLs. Generated here, for every route:
 * by path structure, `POST /x` links to the operations under `/x/{id}` (and `/x/{id}/...`) with
 * `id: $response.body#/data/id`. A create whose result lives elsewhere (`POST /payments/{id}/refunds`
 * makes a refund at `/refunds/{id}`) declares it in its route config (`createdAt`).
 */

/** Where a create's result lives when it is not under the create's own path. */
export interface CreatedAt {
  /** The collection path, e.g. `/api/v1/refunds`: its `/{param}` operations are linked. */
  collection: string;
  /** A runtime expression for the id; default `$response.body#/data/id`. */
  id?: string;
}

/** The operation extension that carries a route's `createdAt` into the document, removed here. */
export const CREATED_AT_EXTENSION = 'x-created-at';

type Operation = {
  operationId?: string;
  responses?: Record<string, { links?: Record<string, unknown> }>;
  [CREATED_AT_EXTENSION]?: CreatedAt[];
};
type Paths = Record<string, Record<string, Operation>>;

const RESPONSE_ID = '$response.body#/data/id';
const paramsOf = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);

/** The operations on one item of `collection`: under `/collection/{param}`, in document order. */
function itemOperations(paths: Paths, collection: string) {
  const out: { path: string; param: string; operation: Operation }[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    const item = new RegExp(`^${collection.replace(/[{}]/g, '\\$&')}/\\{(\\w+)\\}(/|$)`).exec(path);
    if (!item?.[1]) continue;
    for (const operation of Object.values(operations)) out.push({ path, param: item[1], operation });
  }
  return out;
}

function linksTo(paths: Paths, created: CreatedAt, from: Operation) {
  const links: Record<string, unknown> = {};
  const inherited = paramsOf(created.collection);
  for (const { path, param, operation } of itemOperations(paths, created.collection)) {
    // Only operations whose every path parameter the create can fill: the collection's own (from
    // the request) and the new item's id.
    if (!operation.operationId || operation === from) continue;
    if (paramsOf(path).length !== inherited.length + 1) continue;
    links[operation.operationId] = {
      operationId: operation.operationId,
      parameters: {
        ...Object.fromEntries(inherited.map((p) => [p, `$request.path.${p}`])),
        [param]: created.id ?? RESPONSE_ID,
      },
      description: `Run \`${operation.operationId}\` on what this call created.`,
    };
  }
  return links;
}

export function addCreateLinks<T extends object>(document: T): T {
  const paths = (document as { paths?: Paths }).paths ?? {};
  for (const [path, operations] of Object.entries(paths)) {
    for (const operation of Object.values(operations)) {
      const declared = operation[CREATED_AT_EXTENSION];
      delete operation[CREATED_AT_EXTENSION];
      const created = operation.responses?.['201'];
      if (!created) continue;
      const links = Object.assign(
        {},
        ...(declared ?? [{ collection: path }]).map((at) => linksTo(paths, at, operation)),
      );
      if (Object.keys(links).length) created.links = links;
    }
  }
  return document;
}
