import type { BillingAdapter } from '../billing/adapter.js';
import type { Tx } from '../db/client.js';
import type { Intent, IntentDeps } from './intents.js';
import type { EffectRecord } from './tables.js';

/**
 * Undoing what an intent's calls did, found by their keys in the billing system (`findOperation`):
 * a provisioned subscription is cancelled at once and its first invoice voided; an invoice is
 * voided. Used when an operation that creates things fails after a call may have taken effect
 * (nobody was told of what it created), by the operation itself and by the reconciler.
 */

const UNDOABLE = new Set<EffectRecord['kind']>(['create_invoice', 'provision_subscription']);

async function voidOrKeep(adapter: BillingAdapter, invoiceId: string, key: string): Promise<string | null> {
  const voided = await adapter.voidInvoice(invoiceId, key);
  return voided.ok ? null : `invoice ${invoiceId} could not be voided: ${voided.failure.message}`;
}

/** Undoes one step; the problem when it cannot be undone. */
async function undoStep(
  adapter: BillingAdapter,
  intent: Intent,
  effect: EffectRecord,
): Promise<string | null> {
  const key = intent.keyFor(effect.step);
  const found = await adapter.findOperation(key);
  if (!found.ok) return `the billing system could not say what ${key} did: ${found.failure.message}`;
  const record = found.value;
  if (!record) {
    effect.outcome = 'not_applied';
    return null;
  }
  if (!UNDOABLE.has(effect.kind)) return `a ${effect.kind} cannot be undone`;
  if (record.kind === 'invoice') {
    effect.resources = { invoiceId: record.invoice.id };
    const problem = await voidOrKeep(adapter, record.invoice.id, `${key}_undo`);
    if (!problem) effect.outcome = 'undone';
    return problem;
  }
  if (record.kind !== 'subscription') return `a ${effect.kind} recorded ${record.kind}, not a subscription`;
  const { subscription, invoice } = record.change;
  effect.resources = { subscriptionId: subscription.id, ...(invoice ? { invoiceId: invoice.id } : {}) };
  const cancelled = await adapter.cancelSubscription({
    subscriptionId: subscription.id,
    timing: 'immediate',
    idempotencyKey: `${key}_undo`,
  });
  // A conflict here means it is cancelled already: undone either way.
  if (!cancelled.ok && cancelled.failure.kind !== 'conflict')
    return `subscription ${subscription.id} could not be cancelled: ${cancelled.failure.message}`;
  const problem = invoice ? await voidOrKeep(adapter, invoice.id, `${key}_undo_invoice`) : null;
  if (!problem) effect.outcome = 'undone';
  return problem;
}

/**
 * Undoes every step that may have taken effect, last first. `compensated` when something was
 * undone, `abandoned` when nothing had taken effect, `attention` (with the problems) when a step
 * could not be undone. An outage is thrown: the intent stays pending for the next pass.
 */
export async function compensate(
  adapter: BillingAdapter,
  intent: Intent,
): Promise<{ status: 'compensated' | 'abandoned' | 'attention'; problems: string[] }> {
  const problems: string[] = [];
  for (const effect of [...intent.effects].reverse()) {
    if (effect.outcome === 'refused' || effect.outcome === 'undone' || effect.outcome === 'not_applied')
      continue;
    const problem = await undoStep(adapter, intent, effect);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) return { status: 'attention', problems };
  return {
    status: intent.effects.some((e) => e.outcome === 'undone') ? 'compensated' : 'abandoned',
    problems,
  };
}

/**
 * After an operation failed outside its unit of work (a refusal, an outage, a conflict at
 * commit): closes or releases its intent as its effects require, then the caller rethrows.
 * Nothing took effect: closed `failed`, and `onClosed` (the subject's claim is given back) runs in
 * the same transaction. Something may have: a `compensate` intent is undone now (or left for the
 * reconciler if the billing system is down); a `roll_forward` intent stays pending for a retry or
 * the reconciler to finish, unless a later call was refused after an earlier one took effect,
 * which needs an operator (`attention`).
 */
export async function abandonIntent(
  deps: IntentDeps,
  intent: Intent,
  adapter: BillingAdapter | null,
  error: unknown,
  onClosed?: (tx: Tx) => Promise<void>,
): Promise<void> {
  const reason = error instanceof Error ? error.message : String(error);
  const closeAs = async (status: 'failed' | 'compensated' | 'abandoned' | 'attention', detail: string) =>
    deps.db.transaction(async (tx) => {
      if ((await intent.close(tx, deps.clock.now(), status, { error: detail })) && onClosed)
        await onClosed(tx);
    });
  if (!intent.touched) return closeAs('failed', reason);
  if (intent.row.recovery === 'roll_forward') {
    const refusedAfterEffect = intent.effects.some((e) => e.outcome === 'refused');
    if (refusedAfterEffect)
      return closeAs('attention', `a later call was refused after an earlier one took effect: ${reason}`);
    return intent.release(deps.db, deps.clock.now(), error);
  }
  try {
    if (!adapter) throw new Error('no billing integration to undo the calls with');
    const undone = await compensate(adapter, intent);
    await closeAs(undone.status, [reason, ...undone.problems].join('; '));
  } catch (err) {
    await intent.release(deps.db, deps.clock.now(), err);
  }
}

/**
 * For the reconciler, before it finishes a roll-forward intent: did any of its calls take
 * effect? The billing system is asked about every call whose outcome is not known. None did: the
 * intent is closed `abandoned` and `onClosed` gives its subject back (the caller was told of a
 * failure, and nothing happened); false. Some did: true, finish the operation.
 */
export async function anyCallTookEffect(
  deps: IntentDeps,
  intent: Intent,
  adapter: BillingAdapter,
  onClosed: (tx: Tx) => Promise<void>,
): Promise<boolean> {
  for (const effect of intent.effects) {
    if (effect.outcome === 'applied') return true;
    if (effect.outcome !== 'pending' && effect.outcome !== 'unknown') continue;
    const found = await adapter.findOperation(intent.keyFor(effect.step));
    if (!found.ok)
      throw new Error(`the billing system could not say what ${effect.step} did: ${found.failure.message}`);
    if (found.value) return true;
    effect.outcome = 'not_applied';
  }
  await deps.db.transaction(async (tx) => {
    if (
      await intent.close(tx, deps.clock.now(), 'abandoned', {
        error: intent.row.lastError ?? undefined,
        resolvedBy: 'reconciler',
      })
    )
      await onClosed(tx);
  });
  return false;
}
