import type { OperationContext } from '../core/context.js';
import { notFound } from '../core/errors.js';
import { type Tags, tagValue, withoutTag, withTag } from '../core/tags.js';
import { lockTagged, type TaggedTable, writeTags } from '../db/tags.js';
import type { EventType } from '../events/event-types.js';
import type { AuditAction } from './audit-actions.js';
import type { OperationKey } from './operation-key.js';
import { runUnitOfWork, type UnitDeps } from './unit-of-work.js';

/** What the tag operations need to know of one tagged resource. */
export interface TagTarget<Row extends { id: string; tags: Tags }> {
  table: TaggedTable;
  /** The 404 message's subject, e.g. `Order`. */
  label: string;
  /** The audit entry's `resourceType`, e.g. `payment_session`. */
  resourceType: string;
  audit: { set: AuditAction; delete: AuditAction };
  /** For resources that emit an event on every change: emitted with the presented row when a tag changes. */
  updated?: { event: EventType; present(row: Row): unknown };
}

export interface SetTagInput {
  id: string;
  key: string;
  value: string;
}
export interface DeleteTagInput {
  id: string;
  key: string;
}

/** The two operations of one tagged resource, `(deps, ctx, input, key)` like every operation: the row after. */
export interface TagOperations<Row extends { id: string; tags: Tags }> {
  target: TagTarget<Row>;
  set(deps: UnitDeps, ctx: OperationContext, input: SetTagInput, key: OperationKey<Row>): Promise<Row>;
  remove(deps: UnitDeps, ctx: OperationContext, input: DeleteTagInput, key: OperationKey<Row>): Promise<Row>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * PUT and DELETE `…/{id}/tags/{key}`: under the row's lock (so concurrent changes of other keys
 * are all kept), the new tag set, checked against the bounds (`withTag`), is written with its
 * audit entry (`details: { key, before, after }`, null for an absent value) and, when the resource
 * has one, its `*.updated` event. A value that is already so (or a key that is already absent)
 * changes nothing: 200 with the resource, no write, no audit entry, no event.
 */
export function tagOperations<Row extends { id: string; tags: Tags }>(
  target: TagTarget<Row>,
): TagOperations<Row> {
  const change = (
    deps: UnitDeps,
    ctx: OperationContext,
    id: string,
    tagKey: string,
    value: string | null,
    key: OperationKey<Row>,
  ) =>
    runUnitOfWork(deps, ctx, key, async (u) => {
      // Ids are UUIDs: anything else is no row here (and must not reach a uuid column).
      const row = UUID.test(id) ? await lockTagged<Row>(u.tx, target.table, ctx.tenantId, id) : undefined;
      if (!row) throw notFound(target.label);
      const before = tagValue(row.tags, tagKey) ?? null;
      if (before === value) return row;
      const tags = value === null ? withoutTag(row.tags, tagKey) : withTag(row.tags, tagKey, value);
      const after = await writeTags<Row>(u.tx, target.table, ctx.tenantId, row.id, tags, u.now);
      if (!after) throw notFound(target.label);
      await u.audit({
        action: value === null ? target.audit.delete : target.audit.set,
        resourceType: target.resourceType,
        resourceId: row.id,
        details: { key: tagKey, before, after: value },
      });
      if (target.updated) await u.emit(target.updated.event, target.updated.present(after));
      return after;
    });
  return {
    target,
    set: (deps, ctx, input, key) => change(deps, ctx, input.id, input.key, input.value, key),
    remove: (deps, ctx, input, key) => change(deps, ctx, input.id, input.key, null, key),
  };
}
