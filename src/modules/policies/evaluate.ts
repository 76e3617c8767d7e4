import { LogicEngine } from 'json-logic-engine';
import { AppError, validationFailed } from '../../core/errors.js';
import type { Queryable } from '../../db/client.js';
import { readTogether, type ScalarRead, tenantRead } from '../../db/read-together.js';
import type { PolicyEffect, PolicyType } from './schemas.js';
import { policies } from './tables.js';

/**
 * One engine for the process: the synchronous engine (no async operators), default operators
 * only, never `addMethod`. Its operator table gets a null prototype because the library looks
 * operators up with a plain `methods[name]`, which otherwise accepts `constructor`,
 * `toString` or `__defineGetter__` as "operators" that call into Object.prototype.
 * The interpreted-plan cache is off: it is keyed by object identity, and every evaluation reads
 * fresh condition objects from the database, so it would only fill up and miss.
 */
const engine = new LogicEngine(undefined, { disableInterpretedOptimization: true });
engine.methods = Object.assign(Object.create(null), engine.methods);

/** JSON nesting (objects and arrays) beyond this is refused up front, not left to overflow the stack. */
const MAX_DEPTH = 64;

/** Iterative, and stops at the limit: a 1 MiB body can nest far deeper than the call stack. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [node, depth] = item;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The engine throws plain objects (`{ type: 'Unknown Operator', key }`), NaN or Errors. */
function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (err && typeof err === 'object') {
    const { type, key } = err as { type?: unknown; key?: unknown };
    if (type === 'Unknown Operator') return `unknown operator "${String(key)}"`;
    if (typeof type === 'string') return type.toLowerCase();
  }
  return 'it cannot be evaluated';
}

/**
 * A condition is a JSON object holding one JSONLogic operation that the engine can build.
 * Building also evaluates the parts that do not depend on the input, so `{"/": [1, 0]}` fails here.
 */
export function checkCondition(condition: unknown): void {
  const fail = (why: string) =>
    validationFailed('condition', 'jsonlogic', `condition is not a valid JSONLogic condition: ${why}`);
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) {
    throw fail('it must be a JSON object such as {"==": [{"var": "direction"}, "downgrade"]}');
  }
  if (Object.keys(condition).length !== 1) {
    throw fail('it must hold exactly one operator, e.g. {"and": [...]} to combine several');
  }
  if (nestsDeeperThan(condition, MAX_DEPTH))
    throw fail(`its JSON nests deeper than ${MAX_DEPTH} levels (objects and arrays)`);
  try {
    engine.build(condition);
  } catch (err) {
    throw fail(describe(err));
  }
}

export type PolicyResult = 'block' | 'allow' | 'not_applicable';

/**
 * The data each policy type's conditions see (docs/policies.md). Callers pass these shapes;
 * `evaluatePolicies` takes any object so a caller can add fields without changing this module.
 */
export interface OrderCreatePolicyInput {
  order: {
    items: { productId: string | null; quantity: number; priceCents: number | null }[];
    totalCents: number;
    currency: string;
    contactId: string | null;
    organizationId: string | null;
    journeyId: string | null;
  };
  customerContext: { segment: string | null; locale: string | null; partner: string | null };
}

export interface OrderUpdatePolicyInput {
  /** The order as it is before the change, as the API returns it. */
  order: object;
  /** The PATCH body as sent. */
  changes: object;
}

export interface PlanChangeProduct {
  id: string;
  name: string;
  family: string | null;
  rank: number | null;
  priceCents: number;
}

export interface PlanChangePolicyInput {
  subscription: { id: string; productId: string; quantity: number; status: string };
  currentProduct: PlanChangeProduct;
  targetProduct: PlanChangeProduct;
  direction: 'upgrade' | 'downgrade' | 'lateral';
}

export interface PolicyEvaluation {
  /** False iff at least one policy blocks and none allows. */
  allowed: boolean;
  evaluations: {
    policyId: string;
    policyName: string;
    policyType: PolicyType;
    effect: PolicyEffect;
    result: PolicyResult;
  }[];
}

/** A condition that throws blocks: a broken rule must not open the door. */
function resultOf(condition: unknown, effect: PolicyEffect, data: unknown): PolicyResult {
  try {
    return engine.truthy(engine.run(condition, data)) ? effect : 'not_applicable';
  } catch {
    return 'block';
  }
}

/** A policy as evaluation needs it. */
export interface LoadedPolicy {
  id: string;
  name: string;
  type: PolicyType;
  condition: unknown;
  effect: PolicyEffect;
}

/** The tenant's active policies of `type`, oldest first, as one value (see `readTogether`). */
export const activePoliciesRead: (tenantId: string, type: PolicyType) => ScalarRead<LoadedPolicy[]> =
  tenantRead(
    policies,
    {
      select: `coalesce(json_agg(json_build_object('id', id, 'name', name, 'type', type,
        'condition', condition, 'effect', effect) order by created_at, id), '[]')`,
      where: 'type = ? and active = true',
    },
    (value) => value as LoadedPolicy[],
  );

/**
 * Evaluates the tenant's active policies of `type` against `input` (the documented input of the
 * type, see docs/policies.md), oldest first. An `allow` result is an exception that overrides
 * every `block`.
 */
export async function evaluatePolicies(
  db: Queryable,
  tenantId: string,
  type: PolicyType,
  input: object,
): Promise<PolicyEvaluation> {
  const [loaded] = await readTogether(db, [activePoliciesRead(tenantId, type)]);
  return evaluateLoadedPolicies(loaded, input);
}

/** `evaluatePolicies` on policies already read (`activePoliciesRead`). */
export function evaluateLoadedPolicies(loaded: readonly LoadedPolicy[], input: object): PolicyEvaluation {
  if (loaded.length === 0) return { allowed: true, evaluations: [] };
  // Conditions see a plain-JSON copy: no Dates, getters or class instances of the caller's.
  const data: unknown = JSON.parse(JSON.stringify(input));
  const evaluations = loaded.map((policy) => ({
    policyId: policy.id,
    policyName: policy.name,
    policyType: policy.type,
    effect: policy.effect,
    result: resultOf(policy.condition, policy.effect, data),
  }));
  const blocked = evaluations.some((e) => e.result === 'block');
  const excepted = evaluations.some((e) => e.result === 'allow');
  return { allowed: !blocked || excepted, evaluations };
}

/** Throws 403 `policy_blocked` naming every blocking policy when the evaluation does not allow. */
export function assertAllowed(evaluation: PolicyEvaluation): void {
  if (evaluation.allowed) return;
  const blocking = evaluation.evaluations.filter((e) => e.result === 'block');
  const names = blocking.map((e) => `"${e.policyName}"`).join(', ');
  throw new AppError(
    'policy_blocked',
    `Blocked by ${blocking.length === 1 ? 'policy' : 'policies'} ${names}`,
    blocking.map((e) => ({
      field: 'policy',
      rule: e.policyId,
      message: `${e.policyName} blocks this operation`,
    })),
  );
}
