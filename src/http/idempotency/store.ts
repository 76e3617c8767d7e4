import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { and, eq, gt, isNotNull, isNull, lte, sql } from 'drizzle-orm';
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
    .where(
      and(scopeWhere(req), gt(idempotencyKeys.expiresAt, now), isNotNull(idempotencyKeys.responseStatus)),
    );
  if (!row || row.status === null || row.body === null) return undefined;
  const stored = { requestHash: row.requestHash, status: row.status, body: row.body };
  return isSealed(row.body) ? { ...stored, body: ring.open('idempotent_response', row.body) } : stored;
}

/** Stores the response (closing the claim); an expired record of the same scope is replaced. */
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
    claimToken: null,
    claimedUntil: null,
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

/** What claiming a request's scope found. */
export type Claim =
  | { kind: 'claimed'; token: string }
  | { kind: 'replay'; stored: StoredResponse }
  /** The scope holds another request body (answered or in flight). */
  | { kind: 'conflict' }
  /** The same request is in flight and its claim is still held. */
  | { kind: 'in_flight' };

/**
 * Claims the request's scope with its hash BEFORE the operation has any effect (an intent, a
 * reservation, a billing call), in one statement: a new scope, an expired record, or the same
 * request's claim whose lease has run out (its holder crashed) is taken;
 * anything else is reported. So a request with the same key and another body does nothing at
 * all, and two copies of one request never run at once.
 */
export async function claimScope(
  db: Queryable,
  ring: KeyRing,
  req: IdempotentRequest,
  now: Date,
  leaseMs: number,
): Promise<Claim> {
  const token = randomUUID();
  const at = now.toISOString();
  for (let tries = 0; tries < 3; tries++) {
    const taken = rowsOf(
      await db.execute(sql`
        insert into idempotency_keys (tenant_id, idempotency_key, method, path, request_hash, response_status,
          response_body, claim_token, claimed_until, created_at, expires_at)
        values (${req.tenantId}, ${req.key}, ${req.method}, ${req.path}, ${req.hash}, null, null, ${token},
          ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz, ${at}::timestamptz,
          ${new Date(now.getTime() + RETENTION_MS).toISOString()}::timestamptz)
        on conflict (tenant_id, idempotency_key, method, path) do update set
          request_hash = excluded.request_hash, response_status = null, response_body = null,
          claim_token = excluded.claim_token, claimed_until = excluded.claimed_until,
          created_at = excluded.created_at, expires_at = excluded.expires_at
        where idempotency_keys.expires_at <= excluded.created_at
          or (idempotency_keys.response_status is null and idempotency_keys.request_hash = excluded.request_hash
              and idempotency_keys.claimed_until <= excluded.created_at)
        returning claim_token`),
    );
    if (taken.length > 0) return { kind: 'claimed', token };
    const stored = await findResponse(db, ring, req, now);
    if (stored) return stored.requestHash === req.hash ? { kind: 'replay', stored } : { kind: 'conflict' };
    const [held] = await db
      .select({ requestHash: idempotencyKeys.requestHash })
      .from(idempotencyKeys)
      .where(and(scopeWhere(req), isNull(idempotencyKeys.responseStatus)));
    // Released between the two statements (its request was refused with 400): claim again.
    if (!held) continue;
    return held.requestHash === req.hash ? { kind: 'in_flight' } : { kind: 'conflict' };
  }
  return { kind: 'in_flight' };
}

const heldBy = (req: IdempotentRequest, token: string) =>
  and(scopeWhere(req), eq(idempotencyKeys.claimToken, token), isNull(idempotencyKeys.responseStatus));

/**
 * Gives the claim up: the request failed in a way that is not remembered (400, 5xx), so the key
 * may be used again, as if it had never been sent.
 */
export async function releaseClaim(db: Queryable, req: IdempotentRequest, token: string): Promise<void> {
  await db.delete(idempotencyKeys).where(heldBy(req, token));
}

/** Deletes records past their 24 h retention; returns how many. */
export async function purgeExpired(db: Queryable, now: Date): Promise<number> {
  return affectedRows(await db.delete(idempotencyKeys).where(lte(idempotencyKeys.expiresAt, now)));
}
