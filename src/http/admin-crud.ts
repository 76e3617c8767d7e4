import { Type } from 'typebox';
import { notFound } from '../core/errors.js';
import type { Db } from '../db/client.js';
import { type CrudSpec, diffChanges } from '../unit-of-work/index.js';
import { requireCtx } from './auth.js';
import { action, Envelope, envelope } from './envelope.js';
import { errorResponses } from './errors.js';
import { runMutation } from './mutation.js';
import type { TypedApp } from './types.js';

const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

/** `ShippingOption` -> `shipping option`: names as words, for summaries and messages. */
const words = (pascal: string) => pascal.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

/**
 * Registers list/create/get/update/delete under `spec.path`, admin scope, with schemas,
 * operation ids, audit entries (updates carry a before/after diff) and idempotent writes.
 */
export function registerAdminCrud<Api extends { id: string }, Create, Update>(
  app: TypedApp,
  deps: { db: Db; clock: { now(): Date } },
  spec: CrudSpec<Api, Create, Update>,
) {
  const base = `/api/v1${spec.path}`;
  const config = { public: true, scope: 'admin' } as const;
  const tags = [spec.tag];
  const lower = words(spec.name);
  const lowerPlural = words(spec.plural);
  const notFoundName = lower.charAt(0).toUpperCase() + lower.slice(1);
  const actions = (id: string) => [
    action('self', 'GET', `${spec.path}/${id}`, 'admin'),
    action('update', 'PATCH', `${spec.path}/${id}`, 'admin'),
    action('delete', 'DELETE', `${spec.path}/${id}`, 'admin'),
    action('list', 'GET', spec.path, 'admin'),
  ];

  app.get(
    base,
    {
      config,
      schema: {
        operationId: spec.listOperationId ?? `list${spec.plural}`,
        summary: `List ${lowerPlural}`,
        description: `All ${lowerPlural} of this tenant, newest first. ${spec.about}`,
        tags,
        response: { 200: Envelope(Type.Array(spec.schema), `The tenant's ${lowerPlural}.`) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const items = await spec.service.list(deps.db, ctx.tenantId);
      return envelope(ctx, items, [action('create', 'POST', spec.path, 'admin')]);
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
      runMutation(deps, request, reply, async (m) => {
        const created = await spec.service.create(m.tx, m.ctx.tenantId, request.body as Create, m.now);
        await m.audit({
          action: spec.audit.create,
          resourceType: spec.audit.resourceType,
          resourceId: created.id,
        });
        return { status: 201, body: envelope(m.ctx, created, actions(created.id)) };
      }),
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
        params: IdParams,
        response: { 200: Envelope(spec.schema, `The ${lower}.`), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const item = await spec.service.get(deps.db, ctx.tenantId, request.params.id);
      if (!item) throw notFound(notFoundName);
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
        params: IdParams,
        body: spec.updateBody,
        response: { 200: Envelope(spec.schema, `The updated ${lower}.`), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) =>
      runMutation(deps, request, reply, async (m) => {
        const result = await spec.service.update(
          m.tx,
          m.ctx.tenantId,
          request.params.id,
          request.body as Update,
          m.now,
        );
        if (!result) throw notFound(notFoundName);
        const { updatedAt: _b, ...before } = result.before as Api & { updatedAt?: unknown };
        const { updatedAt: _a, ...after } = result.after as Api & { updatedAt?: unknown };
        await m.audit({
          action: spec.audit.update,
          resourceType: spec.audit.resourceType,
          resourceId: result.after.id,
          details: diffChanges(before, after),
        });
        return { status: 200, body: envelope(m.ctx, result.after, actions(result.after.id)) };
      }),
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
        params: IdParams,
        response: { 204: Type.Null({ description: 'Deleted; no body.' }), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) =>
      runMutation(deps, request, reply, async (m) => {
        const removed = await spec.service.remove(m.tx, m.ctx.tenantId, request.params.id);
        if (!removed) throw notFound(notFoundName);
        await m.audit({
          action: spec.audit.delete,
          resourceType: spec.audit.resourceType,
          resourceId: removed.id,
        });
        return { status: 204, body: undefined };
      }),
  );
}
