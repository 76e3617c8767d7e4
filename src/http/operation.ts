import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { AppError } from '../core/errors.js';
import type { KeyRing } from '../core/key-ring.js';
import type { Db, Queryable } from '../db/client.js';
import { type CommitHooks, derivedKey, mintedKey, type OperationKey } from '../unit-of-work/index.js';
import { requireCtx } from './auth.js';
import type { RequestContext } from './context.js';
import { errorBody } from './error-handler.js';
import {
  claimScope,
  findResponse,
  type IdempotentRequest,
  releaseClaim,
  requestHash,
  type StoredResponse,
  saveResponse,
} from './idempotency/store.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from './limits.js';
import { protocolOf } from './protocol-edge.js';
import type { TypedApp } from './types.js';

/** What a handler answers: a status and a body its route's response schema serialises. */
export interface Presented {
  status: number;
  body: unknown;
}

interface EdgeDeps {
  db: Db;
  clock: Clock;
  keyRing: KeyRing;
  /** The claim on an Idempotency-Key is held as long as an intent's lease (INTENT_LEASE_MS). */
  config?: { intentLeaseMs: number };
}

const CLAIM_LEASE_MS = 30_000;

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT']);
const JSON_TYPE = 'application/json; charset=utf-8';

const conflictingReuse = () =>
  new AppError(
    'idempotency_conflict',
    'This Idempotency-Key was used with a different request body; use a new key for a new request',
  );
const inFlight = () =>
  new AppError(
    'idempotency_in_flight',
    'A request with this Idempotency-Key is still being processed; retry shortly',
    undefined,
    1,
  );

/**
 * 5xx may succeed on retry, 400 is fixed by changing the request, and a refusal that says when to
 * retry (another operation holds the resource) is transient: none of them is remembered.
 */
const isRemembered = (err: AppError) => err.status > 400 && err.status < 500 && err.retryAfter === undefined;

/** A completed duplicate found under the lock: its stored answer is sent instead. */
class StoredReplay extends Error {
  constructor(readonly stored: StoredResponse) {
    super('replay');
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The route an Idempotency-Key is scoped to: its pattern with the parameters filled in,
 * normalised (ids lower-cased), so `/api/v1/orders`, `/api/v1/orders/` and `/api/v1/%6frders`,
 * or one order id in either case, are one scope, as they are one operation.
 */
function scopePath(request: FastifyRequest): string {
  const pattern = request.routeOptions.url ?? request.url.split('?')[0] ?? request.url;
  const params = (request.params ?? {}) as Record<string, string>;
  return pattern.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = String(params[name] ?? '');
    return encodeURIComponent(UUID.test(value) ? value.toLowerCase() : value);
  });
}

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
    path: scopePath(request),
    hash: requestHash(request.body, request.query),
  };
}

/** Serialises with the route's response schema for `status`, exactly as a plain send would. */
function serialize(reply: FastifyReply, status: number, body: unknown): string {
  reply.server.completeActions(body);
  reply.code(status);
  return status === 204 ? '' : (reply.serialize(body) as string);
}

/** A refusal as the route answers it: our error body, or its protocol's. */
function refusal(reply: FastifyReply, request: FastifyRequest, error: AppError): Outcome {
  const protocol = protocolOf(request);
  const { status, body } = protocol
    ? protocol.renderError(error, request)
    : { status: error.status, body: errorBody(error, request) };
  return { status, payload: serialize(reply, status, body), replayed: false };
}

interface Outcome {
  status: number;
  payload: string;
  replayed: boolean;
}

/** Sends a stored or fresh outcome as the exact bytes recorded. */
function send(reply: FastifyReply, outcome: Outcome): FastifyReply {
  if (outcome.replayed) reply.header('X-Idempotency-Replayed', 'true');
  if (outcome.status === 204) return reply.code(204).send();
  return reply.code(outcome.status).type(JSON_TYPE).send(outcome.payload);
}

const replayOf = (stored: StoredResponse): Outcome => ({
  status: stored.status,
  payload: stored.body,
  replayed: true,
});

/**
 * The claim was lost while the operation ran (its lease ran out and a retry of the same request
 * took the scope over): the unit rolls back, and the request answers as that retry does, with its
 * stored response once there is one.
 */
async function lostClaim(deps: EdgeDeps, tx: Queryable, idem: IdempotentRequest): Promise<Error> {
  const stored = await findResponse(tx, deps.keyRing, idem, deps.clock.now());
  return stored?.requestHash === idem.hash ? new StoredReplay(stored) : inFlight();
}

/**
 * A refusal worth remembering (4xx other than 400) is stored on its own, the operation's
 * transaction having rolled back. An answer already stored for this request wins: a unit of the
 * operation committed before the refusal, or a retry took the claim over and answered.
 */
async function rememberRefusal(
  deps: EdgeDeps,
  idem: IdempotentRequest,
  token: string,
  outcome: Outcome,
): Promise<Outcome> {
  const now = deps.clock.now();
  const stored = await findResponse(deps.db, deps.keyRing, idem, now);
  if (stored) return stored.requestHash === idem.hash ? replayOf(stored) : outcome;
  await saveResponse(deps.db, deps.keyRing, idem, token, outcome.status, outcome.payload, now);
  return outcome;
}

/**
 * Claims the Idempotency-Key's scope with the request hash before the operation does anything.
 * Returns the claim token, or the outcome to send instead: a completed duplicate's stored answer.
 * Another body under the key is 422 and the same request still in flight 409, having done nothing.
 */
async function claim(deps: EdgeDeps, idem: IdempotentRequest): Promise<string | Outcome> {
  const leaseMs = deps.config?.intentLeaseMs ?? CLAIM_LEASE_MS;
  const found = await claimScope(deps.db, deps.keyRing, idem, deps.clock.now(), leaseMs);
  if (found.kind === 'claimed') return found.token;
  if (found.kind === 'replay') return replayOf(found.stored);
  throw found.kind === 'conflict' ? conflictingReuse() : inFlight();
}

/**
 * The HTTP edge of a write: runs `operation` (which does its work in one unit of work) with its
 * operation key and sends what `present` makes of the result.
 *
 * With an Idempotency-Key, the key's scope is first claimed with the canonical request hash
 * (`claim`), before any effect: the same key with another body is 422 and a duplicate of a request
 * still running 409 idempotency_in_flight, both having done nothing. The operation key is derived
 * from the key and the request, and the response is stored in the operation's own transaction
 * (which checks again under a lock); a completed request is replayed byte for byte with
 * `X-Idempotency-Replayed: true`. Refusals other than 400 are remembered too; 400 and 5xx are
 * not, so a retry runs again.
 */
export async function respond<T>(
  deps: EdgeDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: (ctx: RequestContext, key: OperationKey<T>) => Promise<T>,
  present: (result: T, ctx: RequestContext) => Presented,
  options: { ctx?: RequestContext } = {},
): Promise<FastifyReply> {
  const ctx = options.ctx ?? requireCtx(request);
  const idem = idempotentRequest(request, ctx);
  const claimed = idem ? await claim(deps, idem) : undefined;
  if (typeof claimed === 'object') return send(reply, claimed);
  let made: Outcome | undefined;
  // The response is stored under the claim's token: in the unit's own transaction when there is
  // one (so an idempotent unit always runs in one), on its own otherwise; a later answer of the
  // same request (its result moved on after the commit) replaces it.
  const store = async (q: Queryable, status: number, payload: string) =>
    !idem ||
    !claimed ||
    (await saveResponse(q, deps.keyRing, idem, claimed, status, payload, deps.clock.now()));
  const hooks: CommitHooks<T> = {
    transactional: idem !== null,
    beforeCommit: async (result, tx) => {
      const { status, body } = present(result, ctx);
      made = { status, payload: serialize(reply, status, body), replayed: false };
      if (idem && tx && !(await store(tx, status, made.payload))) throw await lostClaim(deps, tx, idem);
    },
    afterCommit: async (result) => {
      const { status, body } = present(result, ctx);
      made = { status, payload: serialize(reply, status, body), replayed: false };
      await store(deps.db, status, made.payload);
    },
  };
  const key = idem
    ? derivedKey([ctx.tenantId, idem.method, idem.path, idem.key, idem.hash], hooks)
    : mintedKey(hooks);
  try {
    const result = await operation(ctx, key);
    if (!made) {
      // The operation changed nothing (no unit of work ran): its answer is stored on its own.
      const { status, body } = present(result, ctx);
      made = { status, payload: serialize(reply, status, body), replayed: false };
      await store(deps.db, status, made.payload);
    }
    return send(reply, made);
  } catch (err) {
    if (err instanceof StoredReplay) return send(reply, replayOf(err.stored));
    if (!idem || claimed === undefined) throw err;
    if (!(err instanceof AppError) || !isRemembered(err)) {
      // Not remembered (400, 5xx, a transient refusal): the key is free again, as before it was
      // used; an intent the request left pending is resumed by the same request (same operation
      // key) or settled by the reconciler. The claim's lease runs out if this fails too.
      await releaseClaim(deps.db, idem, claimed).catch(() => {});
      throw err;
    }
    const outcome = await rememberRefusal(deps, idem, claimed, refusal(reply, request, err));
    return send(reply, outcome);
  }
}

/**
 * Before a write handler runs (a preHandler): a request whose Idempotency-Key already holds a
 * completed response is answered from it at once, byte for byte. Operations read state and may
 * call the billing system before their transaction; without this, the first request's own
 * effects (a session now terminal, an invoice now paid) would make its retry fail instead of
 * replaying. The unit of work checks again under the lock, for requests that race.
 */
export function registerIdempotentReplay(app: TypedApp, deps: EdgeDeps) {
  app.addHook('preHandler', async (request, reply) => {
    if (!request.ctx) return;
    const idem = idempotentRequest(request, request.ctx);
    if (!idem) return;
    const stored = await findResponse(deps.db, deps.keyRing, idem, deps.clock.now());
    if (!stored) return;
    if (stored.requestHash !== idem.hash) throw conflictingReuse();
    return send(reply, replayOf(stored));
  });
}
