import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { and, eq, isNull, lte } from 'drizzle-orm';
import { isSealed, type KeyRing } from '../../core/key-ring.js';
import { affectedRows, type Queryable, rowsOf } from '../../db/client.js';
import { statementTemplate } from '../../db/row-statements.js';
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
  const [row] = rowsOf<{ request_hash: string; response_status: number; response_body: string }>(
    await db.execute(storedResponse([req.tenantId, req.key, req.method, req.path, now.toISOString()])),
  );
  if (!row) return undefined;
  const stored = { requestHash: row.request_hash, status: row.response_status, body: row.response_body };
  return isSealed(row.response_body)
    ? { ...stored, body: ring.open('idempotent_response', row.response_body) }
    : stored;
}

// The statements every idempotent request runs, their text built once (src/db/row-statements.ts).
const SCOPE = 'tenant_id = ?::uuid and idempotency_key = ? and method = ? and path = ?';
const storedResponse = statementTemplate(
  `select request_hash, response_status, response_body from idempotency_keys
   where ${SCOPE} and expires_at > ?::timestamptz and response_status is not null`,
);
// The answering request's token stays on the row: a later unit of the same request may answer
// again (the same request, its latest answer), while a request whose claim was taken over finds
// another token there.
const answerClaim = statementTemplate(
  `update idempotency_keys set response_status = ?, response_body = ?, claimed_until = null,
     created_at = ?::timestamptz, expires_at = ?::timestamptz
   where ${SCOPE} and claim_token = ?
   returning 1 as answered`,
);
const takeScope = statementTemplate(
  `insert into idempotency_keys (tenant_id, idempotency_key, method, path, request_hash, response_status,
     response_body, claim_token, claimed_until, created_at, expires_at)
   values (?::uuid, ?, ?, ?, ?, null, null, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz)
   on conflict (tenant_id, idempotency_key, method, path) do update set
     request_hash = excluded.request_hash, response_status = null, response_body = null,
     claim_token = excluded.claim_token, claimed_until = excluded.claimed_until,
     created_at = excluded.created_at, expires_at = excluded.expires_at
   where idempotency_keys.expires_at <= excluded.created_at
     or (idempotency_keys.response_status is null and idempotency_keys.request_hash = excluded.request_hash
         and idempotency_keys.claimed_until <= excluded.created_at)
   returning claim_token`,
);

/**
 * Stores the response of the request holding the claim `token` (closing the claim, or replacing
 * its earlier answer), in the caller's transaction if it has one. False when the claim is no
 * longer this request's: its lease ran out and a retry of the same request took the scope over
 * (the caller then rolls back and answers as that retry does).
 */
export async function saveResponse(
  q: Queryable,
  ring: KeyRing,
  req: IdempotentRequest,
  token: string,
  status: number,
  body: string,
  now: Date,
): Promise<boolean> {
  const sealed = ring.seal('idempotent_response', body);
  const expires = new Date(now.getTime() + RETENTION_MS).toISOString();
  const answered = await q.execute(
    answerClaim([
      status,
      sealed,
      now.toISOString(),
      expires,
      req.tenantId,
      req.key,
      req.method,
      req.path,
      token,
    ]),
  );
  return rowsOf(answered).length > 0;
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
  const lease = new Date(now.getTime() + leaseMs).toISOString();
  const expires = new Date(now.getTime() + RETENTION_MS).toISOString();
  for (let tries = 0; tries < 3; tries++) {
    const taken = rowsOf(
      await db.execute(
        takeScope([req.tenantId, req.key, req.method, req.path, req.hash, token, lease, at, expires]),
      ),
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
