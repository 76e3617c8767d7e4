import { desc, eq, type SQL } from 'drizzle-orm';
import type { Static } from 'typebox';
import { iso, isoOrNull } from '../../core/format.js';
import type { PageRequest } from '../../core/paging.js';
import type { Queryable } from '../../db/client.js';
import { rowsAfter } from '../../db/keyset.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { effectKey, type IntentRow, type IntentStatus, intents } from '../../unit-of-work/index.js';
import type { IntentSchema } from './schemas.js';

export type IntentApi = Static<typeof IntentSchema>;

export function presentIntent(row: IntentRow): IntentApi {
  return {
    id: row.id,
    operation: row.operation,
    status: row.status,
    recovery: row.recovery,
    attempt: row.attempt,
    runs: row.runs,
    subject: row.subjectType && row.subjectId ? { type: row.subjectType, id: row.subjectId } : null,
    effects: row.effects.map((e) => ({ ...e, idempotencyKey: effectKey(row, e.step) })),
    actorKeyId: row.actorKeyId,
    actorUserId: row.actorUserId,
    requestId: row.requestId,
    lastError: row.lastError,
    resolvedBy: row.resolvedBy,
    leaseUntil: iso(row.leaseUntil),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    closedAt: isoOrNull(row.closedAt),
  };
}

export async function listIntents(
  db: Queryable,
  tenantId: string,
  filters: { status?: IntentStatus | undefined; operation?: string | undefined },
  page: PageRequest,
): Promise<IntentRow[]> {
  const conditions: (SQL | undefined)[] = [
    filters.status ? eq(intents.status, filters.status) : undefined,
    filters.operation ? eq(intents.operation, filters.operation) : undefined,
    page.after ? rowsAfter([intents.createdAt, intents.id], page.after, true) : undefined,
  ];
  return db
    .select()
    .from(intents)
    .where(tenantWhere(intents, tenantId, ...conditions))
    .orderBy(desc(intents.createdAt), desc(intents.id))
    .limit(page.limit + 1);
}

export async function getIntent(db: Queryable, tenantId: string, id: string): Promise<IntentRow | undefined> {
  const [row] = await db
    .select()
    .from(intents)
    .where(tenantWhere(intents, tenantId, eq(intents.id, id)));
  return row;
}
