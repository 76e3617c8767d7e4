import { type SQL, sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { AppError } from '../core/errors.js';
import { type Db, type Queryable, rowsOf, type Tx } from '../db/client.js';
import { insideApiTransaction } from '../db/transaction-guard.js';
import type { DeliverySignal } from '../events/delivery-signal.js';
import type { EventType } from '../events/event-types.js';
// Direct import (not the module index): the index loads webhook routes, which import this file.
import { fanOutFromEvents } from '../events/fan-out.js';
import { type EventRow, eventRow, eventRowsInsert } from '../events/outbox.js';
import { type AuditInput, auditRow, auditRowsInsert } from '../unit-of-work/index.js';
import { requireCtx } from './auth.js';
import type { RequestContext } from './context.js';
import {
  findResponse,
  type IdempotentRequest,
  requestHash,
  saveResponse,
  tryLockScope,
} from './idempotency/store.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from './limits.js';
import type { TypedApp } from './types.js';

/**
 * What a write that reads nothing in its transaction sees: the caller, the time, and writers that
 * buffer. Everything buffered is written by one statement at the end (see `bind`).
 */
export interface BufferedMutation {
  ctx: RequestContext;
  now: Date;
  audit(entry: AuditInput): Promise<void>;
  emit(type: EventType, data: unknown): Promise<void>;
  /** Buffers a data-modifying statement (an INSERT) for the final statement. */
  write(statement: SQL): void;
  /** For writes that queue webhook deliveries themselves: wake the workers once committed. */
  deliveriesQueued(): void;
}

/** What a write sees: its transaction as well, for reads, locks and immediate writes. */
export interface Mutation extends BufferedMutation {
  tx: Tx;
}

export interface MutationResponse {
  status: number;
  body: unknown;
}

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT']);

const conflictingReuse = () =>
  new AppError(
    'idempotency_conflict',
    'This Idempotency-Key was used with a different request body; use a new key for a new request',
  );
const JSON_TYPE = 'application/json; charset=utf-8';

/** 5xx may succeed on retry and 400 is fixed by changing the request: neither is remembered. */
const isRemembered = (status: number) => status > 400 && status < 500;

export function idempotentRequest(request: FastifyRequest, ctx: RequestContext): IdempotentRequest | null {
  const header = request.headers['idempotency-key'];
  if (header === undefined || !WRITE_METHODS.has(request.method)) return null;
  const key = Array.isArray(header) ? header.join(',') : header;
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    const message = `header.idempotency-key must be 1-${IDEMPOTENCY_KEY_MAX_LENGTH} characters`;
    throw new AppError('validation_failed', message, [
      { field: 'header.idempotency-key', rule: 'maxLength', message },
    ]);
  }
  return {
    tenantId: ctx.tenantId,
    key,
    method: request.method,
    path: request.url.split('?')[0] ?? request.url,
    hash: requestHash(request.body, request.query),
  };
}

/**
 * The buffered writers handed to `work`: statements, audit entries and events are written by
 * `flush` in ONE statement at the end (data-modifying CTEs), on `q`: one round trip, and atomic
 * even outside a transaction.
 */
function bind(
  q: Queryable,
  ctx: RequestContext,
  now: Date,
): { m: BufferedMutation; flush(): Promise<boolean> } {
  const writes: SQL[] = [];
  const audits: ReturnType<typeof auditRow>[] = [];
  const outbox: EventRow[] = [];
  // A system write (runSystemMutation) has no API key: its audit entries name no actor.
  const actor = { tenantId: ctx.tenantId, keyId: ctx.keyId || null, requestId: ctx.requestId };
  let queued = false;
  const m: BufferedMutation = {
    ctx,
    now,
    audit: async (entry) => {
      audits.push(auditRow(actor, entry, now));
    },
    emit: async (type, data) => {
      outbox.push(eventRow(ctx.tenantId, type, data, now, ctx.requestId));
    },
    write: (statement) => {
      writes.push(statement);
    },
    deliveriesQueued: () => {
      queued = true;
    },
  };
  return {
    m,
    /** Writes what was buffered; true when webhook deliveries were queued. */
    async flush() {
      const parts = writes.map((w, i) => sql`${sql.raw(`w${i}`)} as (${w})`);
      if (audits.length > 0) parts.push(sql`audit as (${auditRowsInsert(audits)})`);
      if (outbox.length > 0) {
        // The events, and a delivery per matching webhook subscription.
        parts.push(sql`ev as (${eventRowsInsert(outbox)})`);
        const result = await q.execute(sql`with ${sql.join(parts, sql`, `)} ${fanOutFromEvents(now)}`);
        return queued || rowsOf(result).length > 0;
      }
      if (parts.length > 0) await q.execute(sql`with ${sql.join(parts, sql`, `)} select 1`);
      return queued;
    },
  };
}

/** Runs `work` and writes what it buffered, on the same transaction. */
async function runWork(
  tx: Tx,
  ctx: RequestContext,
  now: Date,
  work: (m: Mutation) => Promise<MutationResponse>,
): Promise<MutationResponse & { queued: boolean }> {
  const { m, flush } = bind(tx, ctx, now);
  const response = await work({ ...m, tx });
  return { ...response, queued: await flush() };
}

/**
 * A write that no HTTP request makes (the subscription scheduler): the same transaction, guard
 * and buffered audit/event writes as runMutation, acting for `tenantId` with no API key
 * (`ctx.keyId` is empty; audit entries have no actor) and no Idempotency-Key.
 */
export async function runSystemMutation<T>(
  deps: {
    db: Db;
    clock: Clock;
    config: { appEnv: RequestContext['environment'] };
    deliveries?: DeliverySignal;
  },
  tenantId: string,
  requestId: string,
  work: (m: Mutation) => Promise<T>,
): Promise<T> {
  const ctx: RequestContext = {
    tenantId,
    environment: deps.config.appEnv,
    keyId: '',
    scopes: [],
    rateTier: 'unlimited',
    requestId,
  };
  const now = deps.clock.now();
  const { result, queued } = await deps.db.transaction((tx) =>
    insideApiTransaction(async () => {
      const { m, flush } = bind(tx, ctx, now);
      const result = await work({ ...m, tx });
      return { result, queued: await flush() };
    }),
  );
  if (queued) deps.deliveries?.queued();
  return result;
}

/** Serialises with the route's response schema for `status`, exactly as a plain send would. */
function serialize(reply: FastifyReply, status: number, body: unknown): string {
  reply.code(status);
  return status === 204 ? '' : (reply.serialize(body) as string);
}

function errorPayload(reply: FastifyReply, request: FastifyRequest, error: AppError): string {
  const body = {
    error: error.message,
    code: error.code,
    ...(error.details ? { details: error.details } : {}),
  };
  return serialize(reply, error.status, { ...body, requestId: request.id });
}

interface Outcome {
  status: number;
  payload: string;
  replayed: boolean;
  error?: AppError;
  /** Webhook deliveries were written: workers are told once the transaction commits. */
  queued?: boolean;
}

/**
 * The one way to write: runs `work` (the change, its audit entries and events) and the
 * Idempotency-Key record in ONE transaction, then sends the response.
 *
 * With an Idempotency-Key: a duplicate running concurrently gets 409 idempotency_in_flight; a
 * completed one is replayed byte for byte with `X-Idempotency-Replayed: true`; the same key with a
 * different body is 422 idempotency_conflict. 4xx results other than 400 are remembered too (the
 * work's writes are rolled back to a savepoint first); 400 and 5xx are not, so a retry runs again.
 */
export async function runMutation(
  deps: { db: Db; clock: Clock; deliveries?: DeliverySignal },
  request: FastifyRequest,
  reply: FastifyReply,
  work: (m: Mutation) => Promise<MutationResponse>,
  /** For routes authenticated otherwise (provider callbacks): the tenant context to act as. */
  options: { ctx?: RequestContext } = {},
): Promise<FastifyReply> {
  const ctx = options.ctx ?? requireCtx(request);
  const idem = idempotentRequest(request, ctx);
  const now = deps.clock.now();

  // Everything inside is marked as in the transaction: the root handle and billing adapters
  // refuse to run there (src/db/transaction-guard.ts).
  const outcome = await deps.db.transaction((tx) =>
    insideApiTransaction(async (): Promise<Outcome> => {
      if (!idem) {
        const response = await runWork(tx, ctx, now, work);
        return {
          status: response.status,
          payload: serialize(reply, response.status, response.body),
          replayed: false,
          queued: response.queued,
        };
      }
      if (!(await tryLockScope(tx, idem))) {
        throw new AppError(
          'idempotency_in_flight',
          'A request with this Idempotency-Key is still being processed; retry shortly',
          undefined,
          1,
        );
      }
      const stored = await findResponse(tx, idem, now);
      if (stored) {
        if (stored.requestHash !== idem.hash) throw conflictingReuse();
        return { status: stored.status, payload: stored.body, replayed: true };
      }
      let result: Outcome;
      try {
        const response = await tx.transaction((savepoint) => runWork(savepoint, ctx, now, work));
        result = {
          status: response.status,
          payload: serialize(reply, response.status, response.body),
          replayed: false,
          queued: response.queued,
        };
      } catch (err) {
        if (!(err instanceof AppError) || !isRemembered(err.status)) throw err;
        result = {
          status: err.status,
          payload: errorPayload(reply, request, err),
          replayed: false,
          error: err,
        };
      }
      await saveResponse(tx, idem, result.status, result.payload, now);
      return result;
    }),
  );

  if (outcome.queued) deps.deliveries?.queued();
  return sendOutcome(reply, outcome);
}

/**
 * runMutation for writes that need no reads or locks in their transaction: without an
 * Idempotency-Key, what `work` buffered is written by one statement with no BEGIN/COMMIT around
 * it (one round trip instead of three or more; a single statement is atomic on its own). With
 * one, it is runMutation, as the stored response must commit with the write.
 */
export async function runBufferedMutation(
  deps: { db: Db; clock: Clock; deliveries?: DeliverySignal },
  request: FastifyRequest,
  reply: FastifyReply,
  work: (m: BufferedMutation) => Promise<MutationResponse>,
): Promise<FastifyReply> {
  const ctx = requireCtx(request);
  if (idempotentRequest(request, ctx)) return runMutation(deps, request, reply, work);
  const { m, flush } = bind(deps.db, ctx, deps.clock.now());
  // Marked as in the transaction, as runMutation's work is: billing calls there fail at once.
  const response = await insideApiTransaction(() => work(m));
  // Serialised before the write, so a response that cannot be sent leaves nothing written.
  const payload = serialize(reply, response.status, response.body);
  if (await flush()) deps.deliveries?.queued();
  return sendOutcome(reply, { status: response.status, payload, replayed: false });
}

/** Sends a stored or fresh outcome as the exact bytes recorded. */
function sendOutcome(reply: FastifyReply, outcome: Outcome): FastifyReply {
  if (outcome.replayed) reply.header('X-Idempotency-Replayed', 'true');
  if (outcome.error?.retryAfter !== undefined) reply.header('Retry-After', String(outcome.error.retryAfter));
  if (outcome.status === 204) return reply.code(204).send();
  return reply.code(outcome.status).type(JSON_TYPE).send(outcome.payload);
}

/**
 * Before a write handler runs (a preHandler): a request whose Idempotency-Key already holds a
 * completed response is answered from it at once, byte for byte. Handlers read state and call
 * the billing system before their transaction; without this, the first request's own effects
 * (a session now terminal, an invoice now paid) would make its retry fail instead of replaying.
 * runMutation still checks again under the lock, for requests that race.
 */
export function registerIdempotentReplay(app: TypedApp, deps: { db: Db; clock: Clock }) {
  app.addHook('preHandler', async (request, reply) => {
    if (!request.ctx) return;
    const idem = idempotentRequest(request, request.ctx);
    if (!idem) return;
    const stored = await findResponse(deps.db, idem, deps.clock.now());
    if (!stored) return;
    if (stored.requestHash !== idem.hash) throw conflictingReuse();
    return sendOutcome(reply, { status: stored.status, payload: stored.body, replayed: true });
  });
}
