import type { TSchema } from 'typebox';
import type { OperationContext } from '../core/context.js';
import { notFound } from '../core/errors.js';
import type { Queryable } from '../db/client.js';
import type { AuditAction } from './audit-actions.js';
import { diffChanges } from './audit-log.js';
import type { OperationKey } from './operation-key.js';
import { runUnitOfWork, type UnitDeps, type UnitOfWork } from './unit-of-work.js';

/** What a resource's service provides to its admin endpoints; API shapes in, API shapes out. */
export interface CrudService<Api extends { id: string }, Create, Update> {
  list(db: Queryable, tenantId: string): Promise<Api[]>;
  get(db: Queryable, tenantId: string, id: string): Promise<Api | undefined>;
  /** Validates references and rules (throwing 400/409 AppErrors) and creates. */
  create(tx: Queryable, tenantId: string, input: Create, now: Date): Promise<Api>;
  /** Applies a partial update; undefined when the id is not the tenant's. */
  update(
    tx: Queryable,
    tenantId: string,
    id: string,
    patch: Update,
    now: Date,
  ): Promise<{ before: Api; after: Api } | undefined>;
  /** Deletes; undefined when not found; throws 409 when other resources still refer to it. */
  remove(tx: Queryable, tenantId: string, id: string): Promise<Api | undefined>;
}

export interface CrudSpec<Api extends { id: string }, Create, Update> {
  /** Singular PascalCase for operation ids: `Product` -> createProduct, listProducts... */
  name: string;
  plural: string;
  /** Overrides `list${plural}` when a public route already uses that operation id. */
  listOperationId?: string;
  /** Path under /api/v1, e.g. `/admin/products`. */
  path: string;
  tag: string;
  /** What the resource is, for an agent reading the OpenAPI document. */
  about: string;
  schema: TSchema;
  createBody: TSchema;
  updateBody: TSchema;
  audit: { resourceType: string; create: AuditAction; update: AuditAction; delete: AuditAction };
  service: CrudService<Api, Create, Update>;
  /** What else an update does in its unit of work (events of modules above this resource's). */
  afterUpdate?(u: UnitOfWork, change: { before: Api; after: Api }): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: a list of specs of different resources (routes, seed loader)
export type AnyCrudSpec = CrudSpec<{ id: string }, any, any>;

/** Declares a spec with its types checked, for lists of AnyCrudSpec. */
export const defineCrud = <Api extends { id: string }, Create, Update>(spec: CrudSpec<Api, Create, Update>) =>
  spec;

// The generic operations of a spec's resource: the service's change and its audit entry (an
// update's holds the changed fields before and after), in one unit of work.

type Updated<Api> = Api & { updatedAt?: unknown };

export function createResource<Api extends { id: string }, Create, Update>(
  deps: UnitDeps,
  ctx: OperationContext,
  spec: CrudSpec<Api, Create, Update>,
  input: Create,
  key: OperationKey<Api>,
): Promise<Api> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const created = await spec.service.create(u.tx, ctx.tenantId, input, u.now);
    await u.audit({
      action: spec.audit.create,
      resourceType: spec.audit.resourceType,
      resourceId: created.id,
    });
    return created;
  });
}

export function updateResource<Api extends { id: string }, Create, Update>(
  deps: UnitDeps,
  ctx: OperationContext,
  spec: CrudSpec<Api, Create, Update>,
  input: { id: string; changes: Update },
  key: OperationKey<Api>,
): Promise<Api> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const result = await spec.service.update(u.tx, ctx.tenantId, input.id, input.changes, u.now);
    if (!result) throw notFound(resourceName(spec));
    const { updatedAt: _b, ...before } = result.before as Updated<Api>;
    const { updatedAt: _a, ...after } = result.after as Updated<Api>;
    await u.audit({
      action: spec.audit.update,
      resourceType: spec.audit.resourceType,
      resourceId: result.after.id,
      details: diffChanges(before, after),
    });
    await spec.afterUpdate?.(u, result);
    return result.after;
  });
}

export function deleteResource<Api extends { id: string }, Create, Update>(
  deps: UnitDeps,
  ctx: OperationContext,
  spec: CrudSpec<Api, Create, Update>,
  input: { id: string },
  key: OperationKey<null>,
): Promise<null> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const removed = await spec.service.remove(u.tx, ctx.tenantId, input.id);
    if (!removed) throw notFound(resourceName(spec));
    await u.audit({
      action: spec.audit.delete,
      resourceType: spec.audit.resourceType,
      resourceId: removed.id,
    });
    return null;
  });
}

/** `ShippingOption` -> `Shipping option`: the resource's name in messages. */
export function resourceName(spec: { name: string }): string {
  const words = spec.name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
