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

/**
 * The routes of list/create/get/update/delete under `spec.path`, admin scope, with schemas,
 * operation ids, audit entries (updates carry a before/after diff) and idempotent writes.
 */
export function adminCrudRoutes<Api extends { id: string }, Create, Update>(
  spec: CrudSpec<Api, Create, Update>,
): DeclaredRoute[] {
  const shared: { tags: string[]; scope: 'admin' } = { tags: [spec.tag], scope: 'admin' };
  const lower = words(spec.name);
  const lowerPlural = words(spec.plural);
  const idParams = Type.Object({ id: Type.String({ format: 'uuid', description: `Id of the ${lower}.` }) });
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
  const itemResponse =
    (status: number) =>
    (item: Api, ctx: RequestContext): Presented => ({ status, body: envelope(ctx, item, actions(item.id)) });
  const noContent = (): Presented => ({ status: 204, body: undefined });

  const list = defineRoute({
    ...shared,
    method: 'GET',
    path: spec.path,
    operationId: ids.list,
    summary: `List ${lowerPlural}`,
    description: `All ${lowerPlural} of this tenant, newest first. ${spec.about} ${LIST_PAGING.text}`,
    query: PageQuery,
    responses: { 200: ListEnvelope(spec.schema, `The tenant's ${lowerPlural}.`) },
    handler: async (request, _reply, deps) => {
      const ctx = requireCtx(request);
      const items = await spec.service.list(deps.db, ctx.tenantId);
      return inMemoryList(deps.keyRing, ctx, request, spec.path, items, [next('create', ids.create)]);
    },
  });

  const create = defineRoute({
    ...shared,
    method: 'POST',
    path: spec.path,
    operationId: ids.create,
    summary: `Create a ${lower}`,
    description: `Creates a ${lower}. ${spec.about} Invalid fields or references give 400 naming the field.`,
    body: spec.createBody,
    responses: { 201: Envelope(spec.schema, `The new ${lower}.`), ...errorResponses(409) },
    handler: async (request, reply, deps) =>
      respond(
        deps,
        request,
        reply,
        (ctx, key) => createResource(deps, ctx, spec, request.body as Create, key),
        itemResponse(201),
      ),
  });

  const get = defineRoute({
    ...shared,
    method: 'GET',
    path: `${spec.path}/:id`,
    operationId: ids.get,
    summary: `Get a ${lower}`,
    description: `One ${lower} of this tenant; 404 when the id is not one of this tenant's.`,
    params: idParams,
    responses: { 200: Envelope(spec.schema, `The ${lower}.`), ...errorResponses(404) },
    handler: async (request, _reply, deps) => {
      const ctx = requireCtx(request);
      const item = await spec.service.get(deps.db, ctx.tenantId, request.params.id);
      if (!item) throw notFound(resourceName(spec));
      return envelope(ctx, item, actions(item.id));
    },
  });

  const update = defineRoute({
    ...shared,
    method: 'PATCH',
    path: `${spec.path}/:id`,
    operationId: ids.update,
    summary: `Update a ${lower}`,
    description: `Changes the given fields of a ${lower}; omitted fields stay as they are. The audit entry records a before/after diff of the changed fields.`,
    params: idParams,
    body: spec.updateBody,
    responses: { 200: Envelope(spec.schema, `The updated ${lower}.`), ...errorResponses(404, 409) },
    handler: async (request, reply, deps) => {
      const input = { id: request.params.id, changes: request.body as Update };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => updateResource(deps, ctx, spec, input, key),
        itemResponse(200),
      );
    },
  });

  const remove = defineRoute({
    ...shared,
    method: 'DELETE',
    path: `${spec.path}/:id`,
    operationId: ids.delete,
    summary: `Delete a ${lower}`,
    description: `Deletes a ${lower}. Something other resources still refer to is not deleted: 409, and the error lists them.`,
    params: idParams,
    responses: { 204: Type.Null({ description: 'Deleted; no body.' }), ...errorResponses(404, 409) },
    handler: async (request, reply, deps) => {
      const input = { id: request.params.id };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => deleteResource(deps, ctx, spec, input, key),
        noContent,
      );
    },
  });

  return [list, create, get, update, remove];
}
