import { Type } from 'typebox';
import { LIST_PAGING } from '../core/agent-guide.js';
import { notFound } from '../core/errors.js';
import {
  type CrudSpec,
  createResource,
  deleteResource,
  resourceName,
  updateResource,
} from '../unit-of-work/index.js';
import { requireCtx } from './auth.js';
import type { RequestContext } from './context.js';
import { type DeclaredRoute, defineRoute } from './declared-route.js';
import { type ActionSpec, Envelope, envelope, next } from './envelope.js';
import { errorResponses } from './errors.js';
import { type Presented, respond } from './operation.js';
import { inMemoryList, ListEnvelope, PageQuery } from './paging.js';

/** `ShippingOption` -> `shipping option`: names as words, for summaries and messages. */
const words = (pascal: string) => pascal.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

/** What the five routes of one CRUD spec share: names, operation ids, the item's actions. */
function crudParts<Api extends { id: string }, Create, Update>(spec: CrudSpec<Api, Create, Update>) {
  const lower = words(spec.name);
  // The operations these routes declare: their actions name them through this (checked at start).
  const ids = {
    list: spec.listOperationId ?? `list${spec.plural}`,
    create: `create${spec.name}`,
    get: `get${spec.name}`,
    update: `update${spec.name}`,
    delete: `delete${spec.name}`,
  };
  const actions = (id: string): ActionSpec[] => [
    next('self', ids.get, { id }),
    next('update', ids.update, { id }),
    next('delete', ids.delete, { id }),
    next('list', ids.list),
  ];
  return {
    shared: { tags: [spec.tag], scope: 'admin' } as { tags: string[]; scope: 'admin' },
    lower,
    lowerPlural: words(spec.plural),
    idParams: Type.Object({ id: Type.String({ format: 'uuid', description: `Id of the ${lower}.` }) }),
    ids,
    itemResponse:
      (status: number) =>
      (item: Api, ctx: RequestContext): Presented => ({
        status,
        body: envelope(ctx, item, actions(item.id)),
      }),
    actions,
  };
}

type Parts<Api extends { id: string }> = ReturnType<typeof crudParts<Api, unknown, unknown>>;

function listRoute<Api extends { id: string }, Create, Update>(
  spec: CrudSpec<Api, Create, Update>,
  p: Parts<Api>,
): DeclaredRoute {
  return defineRoute({
    ...p.shared,
    method: 'GET',
    path: spec.path,
    operationId: p.ids.list,
    summary: `List ${p.lowerPlural}`,
    description: `All ${p.lowerPlural} of this tenant, newest first. ${spec.about} ${LIST_PAGING.text}`,
    query: PageQuery,
    responses: { 200: ListEnvelope(spec.schema, `The tenant's ${p.lowerPlural}.`) },
    handler: async (request, _reply, deps) => {
      const ctx = requireCtx(request);
      const items = await spec.service.list(deps.db, ctx.tenantId);
      return inMemoryList(deps.keyRing, ctx, request, spec.path, items, [next('create', p.ids.create)]);
    },
  });
}

function createRoute<Api extends { id: string }, Create, Update>(
  spec: CrudSpec<Api, Create, Update>,
  p: Parts<Api>,
): DeclaredRoute {
  return defineRoute({
    ...p.shared,
    method: 'POST',
    path: spec.path,
    operationId: p.ids.create,
    summary: `Create a ${p.lower}`,
    description: `Creates a ${p.lower}. ${spec.about} Invalid fields or references give 400 naming the field.`,
    body: spec.createBody,
    responses: { 201: Envelope(spec.schema, `The new ${p.lower}.`), ...errorResponses(409) },
    handler: async (request, reply, deps) =>
      respond(
        deps,
        request,
        reply,
        (ctx, key) => createResource(deps, ctx, spec, request.body as Create, key),
        p.itemResponse(201),
      ),
  });
}

function getRoute<Api extends { id: string }, Create, Update>(
  spec: CrudSpec<Api, Create, Update>,
  p: Parts<Api>,
): DeclaredRoute {
  return defineRoute({
    ...p.shared,
    method: 'GET',
    path: `${spec.path}/:id`,
    operationId: p.ids.get,
    summary: `Get a ${p.lower}`,
    description: `One ${p.lower} of this tenant; 404 when the id is not one of this tenant's.`,
    params: p.idParams,
    responses: { 200: Envelope(spec.schema, `The ${p.lower}.`), ...errorResponses(404) },
    handler: async (request, _reply, deps) => {
      const ctx = requireCtx(request);
      const item = await spec.service.get(deps.db, ctx.tenantId, request.params.id);
      if (!item) throw notFound(resourceName(spec));
      return envelope(ctx, item, p.actions(item.id));
    },
  });
}

function updateRoute<Api extends { id: string }, Create, Update>(
  spec: CrudSpec<Api, Create, Update>,
  p: Parts<Api>,
): DeclaredRoute {
  return defineRoute({
    ...p.shared,
    method: 'PATCH',
    path: `${spec.path}/:id`,
    operationId: p.ids.update,
    summary: `Update a ${p.lower}`,
    description: `Changes the given fields of a ${p.lower}; omitted fields stay as they are. The audit entry records a before/after diff of the changed fields.`,
    params: p.idParams,
    body: spec.updateBody,
    responses: { 200: Envelope(spec.schema, `The updated ${p.lower}.`), ...errorResponses(404, 409) },
    handler: async (request, reply, deps) => {
      const input = { id: request.params.id, changes: request.body as Update };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => updateResource(deps, ctx, spec, input, key),
        p.itemResponse(200),
      );
    },
  });
}

function deleteRoute<Api extends { id: string }, Create, Update>(
  spec: CrudSpec<Api, Create, Update>,
  p: Parts<Api>,
): DeclaredRoute {
  return defineRoute({
    ...p.shared,
    method: 'DELETE',
    path: `${spec.path}/:id`,
    operationId: p.ids.delete,
    summary: `Delete a ${p.lower}`,
    description: `Deletes a ${p.lower}. Something other resources still refer to is not deleted: 409, and the error lists them.`,
    params: p.idParams,
    responses: { 204: Type.Null({ description: 'Deleted; no body.' }), ...errorResponses(404, 409) },
    handler: async (request, reply, deps) => {
      const input = { id: request.params.id };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => deleteResource(deps, ctx, spec, input, key),
        (): Presented => ({ status: 204, body: undefined }),
      );
    },
  });
}

/**
 * The routes of list/create/get/update/delete under `spec.path`, admin scope, with schemas,
 * operation ids, audit entries (updates carry a before/after diff) and idempotent writes.
 */
export function adminCrudRoutes<Api extends { id: string }, Create, Update>(
  spec: CrudSpec<Api, Create, Update>,
): DeclaredRoute[] {
  const p = crudParts(spec) as Parts<Api>;
  return [
    listRoute(spec, p),
    createRoute(spec, p),
    getRoute(spec, p),
    updateRoute(spec, p),
    deleteRoute(spec, p),
  ];
}
