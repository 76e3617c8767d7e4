import { Type } from 'typebox';
import { LIST_PAGING } from '../core/agent-guide.js';
import { notFound } from '../core/errors.js';
import type { KeyRing } from '../core/key-ring.js';
import {
  type CrudSpec,
  createResource,
  deleteResource,
  resourceName,
  type UnitDeps,
  updateResource,
} from '../unit-of-work/index.js';
import { requireCtx } from './auth.js';
import type { RequestContext } from './context.js';
import { action, Envelope, envelope } from './envelope.js';
import { errorResponses } from './errors.js';
import { type Presented, respond } from './operation.js';
import { inMemoryList, ListEnvelope, PageQuery } from './paging.js';
import type { TypedApp } from './types.js';

/** `ShippingOption` -> `shipping option`: names as words, for summaries and messages. */
const words = (pascal: string) => pascal.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

/**
 * Registers list/create/get/update/delete under `spec.path`, admin scope, with schemas,
 * operation ids, audit entries (updates carry a before/after diff) and idempotent writes.
 */
export function registerAdminCrud<Api extends { id: string }, Create, Update>(
  app: TypedApp,
  deps: UnitDeps & { keyRing: KeyRing },
  spec: CrudSpec<Api, Create, Update>,
) {
  const base = `/api/v1${spec.path}`;
  const config = { public: true, scope: 'admin' } as const;
  const tags = [spec.tag];
  const lower = words(spec.name);
  const lowerPlural = words(spec.plural);
  const idParams = Type.Object({ id: Type.String({ format: 'uuid', description: `Id of the ${lower}.` }) });
  const actions = (id: string) => [
    action('self', 'GET', `${spec.path}/${id}`, 'admin'),
    action('update', 'PATCH', `${spec.path}/${id}`, 'admin'),
    action('delete', 'DELETE', `${spec.path}/${id}`, 'admin'),
    action('list', 'GET', spec.path, 'admin'),
  ];
  const itemResponse =
    (status: number) =>
    (item: Api, ctx: RequestContext): Presented => ({ status, body: envelope(ctx, item, actions(item.id)) });
  const noContent = (): Presented => ({ status: 204, body: undefined });

  app.get(
    base,
    {
      config,
      schema: {
        operationId: spec.listOperationId ?? `list${spec.plural}`,
        summary: `List ${lowerPlural}`,
        description: `All ${lowerPlural} of this tenant, newest first. ${spec.about} ${LIST_PAGING.text}`,
        tags,
        querystring: PageQuery,
        response: { 200: ListEnvelope(spec.schema, `The tenant's ${lowerPlural}.`) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const items = await spec.service.list(deps.db, ctx.tenantId);
      return inMemoryList(deps.keyRing, ctx, request, spec.path, items, [
        action('create', 'POST', spec.path, 'admin'),
      ]);
    },
  );

  app.post(
    base,
    {
      config,
      schema: {
        operationId: `create${spec.name}`,
        summary: `Create a ${lower}`,
        description: `Creates a ${lower}. ${spec.about} Invalid fields or references give 400 naming the field.`,
        tags,
        body: spec.createBody,
        response: { 201: Envelope(spec.schema, `The new ${lower}.`), ...errorResponses(409) },
      },
    },
    async (request, reply) =>
      respond(
        deps,
        request,
        reply,
        (ctx, key) => createResource(deps, ctx, spec, request.body as Create, key),
        itemResponse(201),
      ),
  );

  app.get(
    `${base}/:id`,
    {
      config,
      schema: {
        operationId: `get${spec.name}`,
        summary: `Get a ${lower}`,
        description: `One ${lower} of this tenant; 404 when the id is not one of this tenant's.`,
        tags,
        params: idParams,
        response: { 200: Envelope(spec.schema, `The ${lower}.`), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const item = await spec.service.get(deps.db, ctx.tenantId, request.params.id);
      if (!item) throw notFound(resourceName(spec));
      return envelope(ctx, item, actions(item.id));
    },
  );

  app.patch(
    `${base}/:id`,
    {
      config,
      schema: {
        operationId: `update${spec.name}`,
        summary: `Update a ${lower}`,
        description: `Changes the given fields of a ${lower}; omitted fields stay as they are. The audit entry records a before/after diff of the changed fields.`,
        tags,
        params: idParams,
        body: spec.updateBody,
        response: { 200: Envelope(spec.schema, `The updated ${lower}.`), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const input = { id: request.params.id, changes: request.body as Update };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => updateResource(deps, ctx, spec, input, key),
        itemResponse(200),
      );
    },
  );

  app.delete(
    `${base}/:id`,
    {
      config,
      schema: {
        operationId: `delete${spec.name}`,
        summary: `Delete a ${lower}`,
        description: `Deletes a ${lower}. Something other resources still refer to is not deleted: 409, and the error lists them.`,
        tags,
        params: idParams,
        response: { 204: Type.Null({ description: 'Deleted; no body.' }), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const input = { id: request.params.id };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => deleteResource(deps, ctx, spec, input, key),
        noContent,
      );
    },
  );
}
