import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { and, eq, gt, lte, sql } from 'drizzle-orm';
import { isSealed, type KeyRing } from '../../core/key-ring.js';
import { affectedRows, type Queryable, rowsOf, type Tx } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { IDEMPOTENCY_RETENTION_HOURS } from '../limits.js';
import { idempotencyKeys } from './tables.js';

export interface IdempotentRequest {
  tenantId: string;
  key: string;
  method: string;
  /**
   * The route and its parameters, normalised (src/http/operation.ts `scopePath`): the same
   * operation however its URL was spelled.
   */
  path: string;
  /** SHA-256 of the canonical (RFC 8785) request body and query. */
  hash: string;
}

export interface StoredResponse {
  requestHash: string;
  status: number;
  body: string;
}

const RETENTION_MS = IDEMPOTENCY_RETENTION_HOURS * 3_600_000;

export function requestHash(body: unknown, query: unknown): string {
  const canonical = canonicalize({ body: body ?? null, query: query ?? null }) ?? 'null';
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * Takes a transaction-scoped advisory lock on the request's scope. While the first request's
 * transaction runs, a duplicate fails to take it and is told the first is in flight; the lock is
 * released by commit or rollback (or by the connection dying), so it cannot be left behind.
 */
export async function tryLockScope(tx: Tx, req: IdempotentRequest): Promise<boolean> {
  const digest = createHash('sha256')
    .update(`${req.tenantId}\n${req.key}\n${req.method}\n${req.path}`)
    .digest();
  const result = await tx.execute(
    sql`select pg_try_advisory_xact_lock(${digest.readInt32BE(0)}, ${digest.readInt32BE(4)}) as locked`,
  );
  return rowsOf<{ locked: boolean }>(result)[0]?.locked === true;
}

const scopeWhere = (req: IdempotentRequest) =>
  tenantWhere(
    idempotencyKeys,
    req.tenantId,
    eq(idempotencyKeys.idempotencyKey, req.key),
    eq(idempotencyKeys.method, req.method),
    eq(idempotencyKeys.path, req.path),
  );

/**
 * The stored response for this scope, unless it has expired. Responses are kept sealed by the key
 * ring (they may hold a secret shown once: a new API key, a webhook or provider signing secret);
 * one stored in clear before sealing existed is read as it is until the start-up sealing passes.
 */
export async function findResponse(
  db: Queryable,
  ring: KeyRing,
  req: IdempotentRequest,
  now: Date,
): Promise<StoredResponse | undefined> {
  const [row] = await db
    .select({
      requestHash: idempotencyKeys.requestHash,
      status: idempotencyKeys.responseStatus,
      body: idempotencyKeys.responseBody,
    })
    .from(idempotencyKeys)
    .where(and(scopeWhere(req), gt(idempotencyKeys.expiresAt, now)));
  if (!row) return undefined;
  return isSealed(row.body) ? { ...row, body: ring.open('idempotent_response', row.body) } : row;
}

/** Stores the response; an expired record of the same scope is replaced. */
export async function saveResponse(
  tx: Queryable,
  ring: KeyRing,
  req: IdempotentRequest,
  status: number,
  body: string,
  now: Date,
) {
  const values = {
    requestHash: req.hash,
    responseStatus: status,
    responseBody: ring.seal('idempotent_response', body),
    createdAt: now,
    expiresAt: new Date(now.getTime() + RETENTION_MS),
  };
  await tx
    .insert(idempotencyKeys)
    .values({
      tenantId: req.tenantId,
      idempotencyKey: req.key,
      method: req.method,
      path: req.path,
      ...values,
    })
    .onConflictDoUpdate({
      target: [
        idempotencyKeys.tenantId,
        idempotencyKeys.idempotencyKey,
        idempotencyKeys.method,
        idempotencyKeys.path,
      ],
      set: values,
    });
}

/** Deletes records past their 24 h retention; returns how many. */
export async function purgeExpired(db: Queryable, now: Date): Promise<number> {
  return affectedRows(await db.delete(idempotencyKeys).where(lte(idempotencyKeys.expiresAt, now)));
}
