import type { BillingAdapter } from '../billing/adapter.js';
import type { OperationContext } from '../core/context.js';
import type { Queryable, Tx } from '../db/client.js';
import { abandonIntent, anyCallTookEffect } from './compensation.js';
import type { ResumeIntent, ServiceDeps } from './deps.js';
import { beginIntent, type Intent, type IntentStep, pendingPlanOf } from './intents.js';
import type { OperationKey } from './operation-key.js';
import { OPERATION_NAMES, type OperationName } from './operation-names.js';
import type { IntentRecovery } from './tables.js';
import { runUnitOfWork, type UnitOfWork } from './unit-of-work.js';

/**
 * An operation with an external effect, declared once (see docs/architecture.md, "Declared
 * operations"): plan → claim/reserve → external calls under an intent → commit (completing the
 * intent in the same unit of work) → release (nothing took effect). `run` and the reconciler's
 * `resume` both come from the definition, so a retry, a takeover and a resumption follow it alike.
 */

/**
 * What an operation holds while its billing calls run: a resource marked with the operation's id
 * (a subscription's `operation_key` at its version, a payment session's `operation_key`), so no
 * other operation changes it meanwhile. Claimed in the transaction that begins the intent; given
 * back (`release`) when the intent closes without anything taking effect; cleared by the
 * operation's commit otherwise.
 */
export interface ResourceClaim<E = undefined> {
  /** The intent's subject type (`subscription`, `payment_session`). */
  readonly subjectType: string;
  /**
   * Claims resource `id` for `operationId` (claimed by it already: held again), when it is as the
   * operation planned on (`expected`: a version, a state); otherwise throws the resource's 404/409.
   */
  claim(tx: Tx, tenantId: string, id: string, operationId: string, expected: E, now: Date): Promise<void>;
  /** Gives the claim of `operationId` back; nothing when another holds it. */
  release(q: Queryable, tenantId: string, id: string, operationId: string): Promise<void>;
}

/** What each phase of one run sees. */
export interface Run<I, T> {
  deps: ServiceDeps;
  ctx: OperationContext;
  key: OperationKey<T>;
  /** The caller's input; null when the reconciler resumes the operation. */
  input: I | null;
  /** The operation id holding the claim (the commit checks it); null on a local path. */
  claim: string | null;
  /** A retry or the reconciler took over a pending intent: its stored plan runs again. */
  resumed: boolean;
}

/** The answer of an operation that needs no external call (plan returned it). */
export class Local<T> {
  constructor(readonly answer: () => Promise<T>) {}
}
export const local = <T>(answer: () => Promise<T>) => new Local(answer);

/** The billing system refused (an outcome, not an error): the intent closes, `answer` is returned. */
export class Declined<T> {
  constructor(
    readonly reason: string,
    readonly answer: () => Promise<T>,
  ) {}
}
export const declined = <T>(reason: string, answer: () => Promise<T>) => new Declined(reason, answer);

/** The resource an operation claims, found in its plan (`expected`: what the claim checks, a version). */
export interface ClaimOf<P> {
  resource: ResourceClaim<unknown>;
  id(plan: P): string;
  expected(plan: P): unknown;
}

/**
 * The types of an operation: its `input`, its `plan` as stored in the intent, its `result`;
 * optionally the plan as `decided` before `reserve` (default: `plan`), what its calls return
 * (`called`, default unknown) and the `adapter` they go to (default: BillingAdapter).
 */
export interface OperationShape {
  input: unknown;
  plan: unknown;
  result: unknown;
  decided?: unknown;
  called?: unknown;
  adapter?: BillingAdapter;
}
type DecidedOf<S extends OperationShape> = S extends { decided: infer D } ? D : S['plan'];
type CalledOf<S extends OperationShape> = S extends { called: infer C } ? C : unknown;
type AdapterOf<S extends OperationShape> = S extends { adapter: infer A extends BillingAdapter }
  ? A
  : BillingAdapter;

export type Definition<S extends OperationShape> = OperationDefinition<
  S['input'],
  DecidedOf<S>,
  S['plan'],
  CalledOf<S>,
  S['result'],
  AdapterOf<S>
>;
export type Declared<S extends OperationShape> = DeclaredOperation<
  S['input'],
  DecidedOf<S>,
  S['plan'],
  S['result'],
  AdapterOf<S>
>;

/**
 * `I` input, `D` the plan as decided, `P` the plan as stored (after `reserve`; D without one),
 * `C` what the calls returned, `T` the result, `A` the adapter.
 */
export interface OperationDefinition<I, D, P, C, T, A extends BillingAdapter = BillingAdapter> {
  name: OperationName;
  recovery: IntentRecovery;
  /** Outside any transaction: the plan, or a `local` answer when no external call is needed. */
  plan(run: Run<I, T>, input: I): Promise<D | Local<T>>;
  /** The resource claimed with the intent (changes of an existing resource). */
  claims?: ClaimOf<D & P>;
  /** With the claim, unless a retry resumes a stored plan: what is reserved; the plan to store. */
  reserve?(tx: Tx, run: Run<I, T>, decided: D): Promise<P>;
  /** The intent's subject (default: the claimed resource). */
  subject?(plan: P): { type: string; id: string };
  /** The external steps: the step names and effect kinds, each with its own idempotency key. */
  steps(decided: D): readonly IntentStep[];
  /** The tenant's adapter the calls go to; null: `noAdapter` is thrown before any intent. */
  adapter(deps: ServiceDeps, tenantId: string): Promise<A | null>;
  noAdapter(): Error;
  /** The external calls, each through `intent.call(step, ...)`; on the stored plan (`intent.plan`). */
  call(run: Run<I, T>, intent: Intent<P>, adapter: A): Promise<C | Declined<T>>;
  /** In the unit of work: the local record of the outcome (the intent completes with it). */
  commit(u: UnitOfWork, run: Run<I, T>, plan: P, called: C): Promise<T>;
  /** Nothing took effect: what `reserve` took is given back (the claim is given back too). */
  release?(tx: Tx, tenantId: string, plan: P): Promise<void>;
  /** After the commit (credit applied on issue): the result told. */
  afterCommit?(run: Run<I, T>, plan: P, result: T, called: C, adapter: A): Promise<T>;
  /** The reconciler finishes it even when no call took effect (credit promised with an invoice). */
  resumeAlways?(plan: P): boolean;
}

export interface DeclaredOperation<I, D, P, T, A extends BillingAdapter = BillingAdapter> {
  readonly name: OperationName;
  /** Plans, claims and reserves, makes the calls and commits (the first run or a retry). */
  run(deps: ServiceDeps, ctx: OperationContext, input: I, key: OperationKey<T>): Promise<T>;
  /** The reconciler: finishes an intent left pending, or abandons it when no call took effect. */
  resume: ResumeIntent;
  /** In `tx` (the caller's): claim, reservation and intent, for a caller that proceeds after its commit. */
  begin(tx: Tx, run: Run<I, T>, decided: D): Promise<{ intent: Intent<P>; resumed: boolean }>;
  /** The calls and the commit of a begun intent. */
  proceed(run: Run<I, T>, intent: Intent<P>, adapter: A, byReconciler?: boolean): Promise<T>;
}

/** Declares an operation: `declareOperation<{ input: ...; plan: ...; result: ... }>({ ... })`. */
export function declareOperation<S extends OperationShape>(def: Definition<S>): Declared<S> {
  return declare(def);
}

type Def<I, D, P, C, T, A extends BillingAdapter> = OperationDefinition<I, D, P, C, T, A>;

/** Gives back the claim and what was reserved with it (the intent closed without effect). */
function releaseAll<I, D, P, C, T, A extends BillingAdapter>(
  def: Def<I, D, P, C, T, A>,
  tenantId: string,
  plan: P,
  operationId: string,
) {
  return async (tx: Tx) => {
    if (def.claims)
      await def.claims.resource.release(tx, tenantId, def.claims.id(plan as D & P), operationId);
    await def.release?.(tx, tenantId, plan);
  };
}

/** In `q`: the claim, what is reserved with it (unless a retry resumes a stored plan) and the intent. */
async function begin<I, D, P, C, T, A extends BillingAdapter>(
  def: Def<I, D, P, C, T, A>,
  q: Queryable,
  run: Run<I, T>,
  decided: D,
): Promise<{ intent: Intent<P>; resumed: boolean }> {
  const { deps, ctx, key } = run;
  const claimed = def.claims ? def.claims.id(decided as D & P) : null;
  if (def.claims && claimed) {
    const expected = def.claims.expected(decided as D & P);
    await def.claims.resource.claim(q as Tx, ctx.tenantId, claimed, key.id, expected, deps.clock.now());
  }
  const earlier = def.reserve ? await pendingPlanOf<P>(q, ctx.tenantId, key.id) : null;
  const plan =
    earlier ?? (def.reserve ? await def.reserve(q as Tx, run, decided) : (decided as unknown as P));
  const subject =
    def.subject?.(plan) ??
    (def.claims && claimed ? { type: def.claims.resource.subjectType, id: claimed } : undefined);
  const intent = await beginIntent(q, deps, ctx, key, {
    operation: def.name,
    recovery: def.recovery,
    ...(subject ? { subject } : {}),
    plan,
    steps: def.steps(decided),
  });
  return { intent, resumed: earlier !== null };
}

/**
 * The calls and the commit of a begun intent (a first run, a retry or the reconciler). A failure
 * closes, compensates or leaves the intent pending as its effects require (abandonIntent).
 */
async function proceed<I, D, P, C, T, A extends BillingAdapter>(
  def: Def<I, D, P, C, T, A>,
  run: Run<I, T>,
  intent: Intent<P>,
  adapter: A,
  byReconciler = false,
): Promise<T> {
  const { deps, ctx, key } = run;
  // A retry (or the reconciler) that took the intent over continues its stored plan.
  const plan = intent.plan;
  const held: Run<I, T> = { ...run, claim: key.id };
  const release = releaseAll(def, ctx.tenantId, plan, key.id);
  try {
    const called = await def.call(held, intent, adapter);
    if (called instanceof Declined) {
      await abandonIntent(deps, intent, adapter, new Error(called.reason), release);
      return await called.answer();
    }
    const result = await runUnitOfWork(deps, ctx, key, async (u) => {
      const committed = await def.commit(u, held, plan, called);
      await intent.complete(u, byReconciler ? 'reconciler' : 'operation');
      return committed;
    });
    return def.afterCommit ? await def.afterCommit(held, plan, result, called, adapter) : result;
  } catch (err) {
    await abandonIntent(deps, intent, adapter, err, release);
    throw err;
  }
}

async function adapterOf<A extends BillingAdapter>(
  def: { adapter(deps: ServiceDeps, tenantId: string): Promise<A | null>; noAdapter(): Error },
  deps: ServiceDeps,
  tenantId: string,
): Promise<A> {
  const adapter = await def.adapter(deps, tenantId);
  if (!adapter) throw def.noAdapter();
  return adapter;
}

function declare<I, D, P, C, T, A extends BillingAdapter>(
  def: Def<I, D, P, C, T, A>,
): DeclaredOperation<I, D, P, T, A> {
  return {
    name: def.name,
    begin: (tx, run, decided) => begin(def, tx, run, decided),
    proceed: (run, intent, adapter, byReconciler) => proceed(def, run, intent, adapter, byReconciler),
    async run(deps, ctx, input, key) {
      const run: Run<I, T> = { deps, ctx, key, input, claim: null, resumed: false };
      const decided = await def.plan(run, input);
      if (decided instanceof Local) return decided.answer();
      const adapter = await adapterOf(def, deps, ctx.tenantId);
      const begun =
        def.claims || def.reserve
          ? await deps.db.transaction((tx) => begin(def, tx, run, decided))
          : await begin(def, deps.db, run, decided);
      return proceed(def, { ...run, resumed: begun.resumed }, begun.intent, adapter);
    },
    async resume(deps, intent) {
      // A compensate intent is undone by the reconciler itself (compensation.ts), never resumed.
      if (def.recovery !== 'roll_forward') throw new Error(`${def.name} is compensated, not resumed`);
      const ctx = intent.context;
      const key = { id: intent.row.operationId };
      const adapter = await adapterOf(def, deps, ctx.tenantId);
      const plan = intent.plan as P;
      const release = releaseAll(def, ctx.tenantId, plan, key.id);
      if (!def.resumeAlways?.(plan) && !(await anyCallTookEffect(deps, intent, adapter, release)))
        return 'abandoned';
      const run: Run<I, T> = { deps, ctx, key, input: null, claim: key.id, resumed: true };
      await proceed(def, run, intent as Intent<P>, adapter, true);
      return 'completed';
    },
  };
}

type AnyDeclared = { readonly name: OperationName; readonly resume: ResumeIntent };

/**
 * The reconciler's registry, from the list of every declared operation (the composition root): a
 * name left out or listed twice is an error at start-up.
 */
export function operationRegistry(
  operations: readonly AnyDeclared[],
): Readonly<Record<OperationName, ResumeIntent>> {
  const registry: Partial<Record<OperationName, ResumeIntent>> = {};
  for (const op of operations) {
    if (registry[op.name]) throw new Error(`operation ${op.name} is declared twice`);
    registry[op.name] = op.resume;
  }
  const missing = OPERATION_NAMES.filter((name) => !registry[name]);
  if (missing.length > 0) throw new Error(`no declared operation for ${missing.join(', ')}`);
  return registry as Record<OperationName, ResumeIntent>;
}
