import type { TSchema } from 'typebox';
import type { Queryable } from '../db/client.js';
import type { AuditAction } from './audit-actions.js';

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
}

// biome-ignore lint/suspicious/noExplicitAny: a list of specs of different resources (routes, seed loader)
export type AnyCrudSpec = CrudSpec<{ id: string }, any, any>;

/** Declares a spec with its types checked, for lists of AnyCrudSpec. */
export const defineCrud = <Api extends { id: string }, Create, Update>(spec: CrudSpec<Api, Create, Update>) =>
  spec;
