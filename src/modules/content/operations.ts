import { eq } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { OperationContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import {
  diffChanges,
  type OperationKey,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { type ContentEntryRow, findEntry, findVersion } from './service.js';
import { type ContentStatus, contentEntries, contentVersions } from './tables.js';

/** One entry: its key and locale. */
export interface EntryRef {
  key: string;
  locale: string;
}

/** What a version holds: the title, the Markdown body and the status. */
export interface ContentFields {
  title: string;
  body: string;
  status: ContentStatus;
}

export interface ContentWrite {
  entry: ContentEntryRow;
  /** True when the write created the entry (PUT answers 201). */
  created: boolean;
}

const RESOURCE = 'content';
const resourceId = (ref: EntryRef) => `${ref.key}/${ref.locale}`;
/** What an audit entry shows of an entry: the body is in its versions, by number. */
const audited = (row: ContentEntryRow) => ({ title: row.title, status: row.status, version: row.version });

async function keepVersion(u: UnitOfWork, row: ContentEntryRow) {
  await u.tx.insert(contentVersions).values({
    tenantId: row.tenantId,
    entryId: row.id,
    version: row.version,
    title: row.title,
    body: row.body,
    status: row.status,
    createdAt: row.updatedAt,
  });
}

/** Writes `fields` over the locked entry as its next version, keeps the version, audits the diff. */
async function nextVersion(
  u: UnitOfWork,
  before: ContentEntryRow,
  fields: ContentFields,
  action: 'content.update' | 'content.restore',
  extra: Record<string, unknown> = {},
): Promise<ContentEntryRow> {
  const publishedAt =
    fields.status === 'draft' ? null : before.status === 'published' ? before.publishedAt : u.now;
  const [after] = await u.tx
    .update(contentEntries)
    .set({ ...fields, publishedAt, version: before.version + 1, updatedAt: u.now })
    .where(tenantWhere(contentEntries, before.tenantId, eq(contentEntries.id, before.id)))
    .returning();
  if (!after) throw new Error(`content entry ${before.id} vanished under its lock`);
  await keepVersion(u, after);
  await u.audit({
    action,
    resourceType: RESOURCE,
    resourceId: resourceId(after),
    details: { ...diffChanges(audited(before), audited(after)), ...extra },
  });
  return after;
}

async function lockedEntry(u: UnitOfWork, ref: EntryRef): Promise<ContentEntryRow> {
  const row = await findEntry(u.tx, u.ctx.tenantId, ref.key, ref.locale, true);
  if (!row) throw notFound('Content entry');
  return row;
}

/**
 * PUT /admin/content/{key}: creates the entry of this key and locale (version 1, audit
 * `content.create`) or replaces its title, body and status as its next version (`content.update`).
 */
export function putContent(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: EntryRef & ContentFields,
  key: OperationKey<ContentWrite>,
): Promise<ContentWrite> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const { title, body, status } = input;
    const existing = await findEntry(u.tx, ctx.tenantId, input.key, input.locale, true);
    if (!existing) {
      const [created] = await u.tx
        .insert(contentEntries)
        .values({
          tenantId: ctx.tenantId,
          id: uuidv7(),
          key: input.key,
          locale: input.locale,
          title,
          body,
          status,
          version: 1,
          publishedAt: status === 'published' ? u.now : null,
          createdAt: u.now,
          updatedAt: u.now,
        })
        .onConflictDoNothing()
        .returning();
      if (created) {
        await keepVersion(u, created);
        await u.audit({
          action: 'content.create',
          resourceType: RESOURCE,
          resourceId: resourceId(created),
          details: { after: audited(created) },
        });
        return { entry: created, created: true };
      }
    }
    // Created meanwhile by a concurrent PUT: replace it, under its lock.
    const before = existing ?? (await lockedEntry(u, input));
    return { entry: await nextVersion(u, before, { title, body, status }, 'content.update'), created: false };
  });
}

/** PATCH /admin/content/{key}: the given fields over the current ones, as the next version. */
export function patchContent(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: EntryRef & { changes: Partial<ContentFields> },
  key: OperationKey<ContentEntryRow>,
): Promise<ContentEntryRow> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const before = await lockedEntry(u, input);
    const { title, body, status } = { ...before, ...input.changes };
    return nextVersion(u, before, { title, body, status }, 'content.update');
  });
}

/**
 * POST /admin/content/{key}/versions/{version}/restore: the old version's title and body become
 * the next version; the status stays (restoring does not publish or unpublish).
 */
export function restoreContentVersion(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: EntryRef & { version: number },
  key: OperationKey<ContentEntryRow>,
): Promise<ContentEntryRow> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const before = await lockedEntry(u, input);
    const old = await findVersion(u.tx, ctx.tenantId, before.id, input.version);
    if (!old) throw notFound('Content version');
    const fields = { title: old.title, body: old.body, status: before.status };
    return nextVersion(u, before, fields, 'content.restore', { restoredVersion: old.version });
  });
}

/** DELETE /admin/content/{key}: the entry and its versions; audit `content.delete` with its last state. */
export function deleteContent(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: EntryRef,
  key: OperationKey<null>,
): Promise<null> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const before = await lockedEntry(u, input);
    await u.tx
      .delete(contentVersions)
      .where(tenantWhere(contentVersions, ctx.tenantId, eq(contentVersions.entryId, before.id)));
    await u.tx
      .delete(contentEntries)
      .where(tenantWhere(contentEntries, ctx.tenantId, eq(contentEntries.id, before.id)));
    await u.audit({
      action: 'content.delete',
      resourceType: RESOURCE,
      resourceId: resourceId(before),
      details: { before: audited(before) },
    });
    return null;
  });
}
