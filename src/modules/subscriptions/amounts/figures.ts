/**
 * What a change costs: pure functions shared by the previews and the operations, so a preview
 * and the change that follows it agree to the cent (they run this same code on the same inputs).
 */

import type { ChangeTiming, PlanDirection, ProrationType } from '../../catalog/index.js';
import type { BillingInterval } from '../tables.js';
import { type ProrationDays, periodEnd, prorate, prorationDays } from './periods.js';

export interface PeriodState {
  priceCents: number;
  billingInterval: BillingInterval;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
}

export interface PlanChangeFigures {
  direction: PlanDirection;
  changeTiming: ChangeTiming;
  prorationType: ProrationType;
  effectiveDate: Date;
  currentPriceCents: number;
  newPriceCents: number;
  /** Value of the current plan given back (unused time), minor units. */
  creditCents: number;
  /** Charged now for the new plan, minor units. */
  chargeCents: number;
  netCents: number;
  /** The days proration used (immediate changes), or null. */
  proration: ProrationDays | null;
  /** A new period starting at the change (an immediate switch to another billing interval), or null. */
  newPeriod: { start: Date; end: Date } | null;
}

/** The end of a next period an early renewal billed already, or null. */
export const billedAheadUntil = (state: { currentPeriodEnd: Date; billedThrough?: Date | null }) =>
  state.billedThrough && state.billedThrough > state.currentPeriodEnd ? state.billedThrough : null;

/**
 * Figures of a plan or quantity change at `at`:
 * - `end_of_period`: nothing is charged or credited now; the new price applies from the
 *   period end (the scheduler switches the plan there, then renews at the new price). After an
 *   early renewal, from the end of the period it billed: that period keeps the plan it was billed
 *   for.
 * - `immediate` within the same billing interval: credit for the unused days of the current
 *   price (`prorated`), the whole current period (`full_credit`) or nothing (`none`); charge
 *   for the remaining days at the new price (`prorated`, `full_credit`) or nothing (`none`,
 *   the new price applies from the next period).
 * - `immediate` to another billing interval: the current period ends now with the credit as
 *   above, and a new period of the new interval starts now, charged in full.
 * - `immediate` after an early renewal: the period it billed is credited whole at the current
 *   price and, within the same interval, charged whole at the new one (the subscription moves
 *   into it on the new plan without another invoice); a new interval's period replaces it.
 */
export function planChangeFigures(input: {
  state: PeriodState & { billedThrough?: Date | null };
  newPriceCents: number;
  targetInterval: BillingInterval;
  direction: PlanDirection;
  changeTiming: ChangeTiming;
  prorationType: ProrationType;
  at: Date;
}): PlanChangeFigures {
  const { state, newPriceCents, direction, changeTiming, prorationType, at } = input;
  const base = {
    direction,
    changeTiming,
    prorationType,
    currentPriceCents: state.priceCents,
    newPriceCents,
  };
  const ahead = billedAheadUntil(state);
  if (changeTiming === 'end_of_period') {
    return {
      ...base,
      effectiveDate: ahead ?? state.currentPeriodEnd,
      creditCents: 0,
      chargeCents: 0,
      netCents: 0,
      proration: null,
      newPeriod: null,
    };
  }
  const days = prorationDays(state.currentPeriodStart, state.currentPeriodEnd, at);
  const switchesInterval = input.targetInterval !== state.billingInterval;
  const creditCents =
    (prorationType === 'prorated'
      ? prorate(state.priceCents, days)
      : prorationType === 'full_credit'
        ? state.priceCents
        : 0) + (ahead ? state.priceCents : 0);
  const chargeCents = switchesInterval
    ? newPriceCents
    : (prorationType === 'none' ? 0 : prorate(newPriceCents, days)) + (ahead ? newPriceCents : 0);
  return {
    ...base,
    effectiveDate: at,
    creditCents,
    chargeCents,
    netCents: chargeCents - creditCents,
    proration: days,
    newPeriod: switchesInterval ? { start: at, end: periodEnd(at, input.targetInterval, 1) } : null,
  };
}

/** What a cancellation gives back for the unused time: nothing, account credit, or a refund. */
export const GIVE_BACK = ['none', 'credit', 'refund'] as const;
export type GiveBack = (typeof GIVE_BACK)[number];

export interface CancellationFigures {
  timing: ChangeTiming;
  /**
   * When it ends: now (`immediate`); at `end_of_period` the end of what was billed
   * (`billedThrough`, the end of a period an early renewal billed), or `currentPeriodEnd` when
   * that billed period is given back (`refund` not `none`) or there is none.
   */
  effectiveDate: Date;
  currentPriceCents: number;
  /**
   * The unused time of what was billed, given back as account credit (`creditCents`) or as a
   * refund of the subscription's last payments (`refundCents`) as the cancellation asks (0 for
   * `none`): `immediate`, the rest of the current period prorated by the day and a next period
   * billed early, whole; `end_of_period`, that next period, whole (the current one is used up).
   */
  creditCents: number;
  refundCents: number;
  chargeCents: number;
  netCents: number;
  /** Paid days given up: the rest of the current period (`immediate`) and a billed period not run into. */
  unusedDays: number;
}

/** Whether the cancellation asks for the unused time back (credit or refund). */
export const givesBack = (giveBack: GiveBack) => giveBack !== 'none';

/**
 * Figures of a cancellation at `at`. A next period billed early is either run (`end_of_period`
 * with nothing asked back: the subscription ends at its end) or given up, and then given back
 * whole per `giveBack`; `immediate` gives up the rest of the current period as well.
 */
export function cancellationFigures(
  state: PeriodState & { billedThrough?: Date | null },
  timing: ChangeTiming,
  at: Date,
  giveBack: GiveBack = 'none',
): CancellationFigures {
  const immediate = timing === 'immediate';
  const ahead = billedAheadUntil(state);
  const runsIntoBilled = ahead !== null && !immediate && !givesBack(giveBack);
  const givenUp = ahead !== null && !runsIntoBilled;
  const days = prorationDays(state.currentPeriodStart, state.currentPeriodEnd, at);
  const aheadDays = ahead ? prorationDays(state.currentPeriodEnd, ahead, state.currentPeriodEnd).total : 0;
  const unusedCents = (immediate ? prorate(state.priceCents, days) : 0) + (givenUp ? state.priceCents : 0);
  const creditCents = giveBack === 'credit' ? unusedCents : 0;
  const refundCents = giveBack === 'refund' ? unusedCents : 0;
  return {
    timing,
    effectiveDate: immediate ? at : runsIntoBilled && ahead ? ahead : state.currentPeriodEnd,
    currentPriceCents: state.priceCents,
    creditCents,
    refundCents,
    chargeCents: 0,
    netCents: -(creditCents + refundCents),
    unusedDays: (immediate ? days.remaining : 0) + (givenUp ? aheadDays : 0),
  };
}

export interface AddOnFigures {
  effectiveDate: Date;
  /** Price of one full period of the add-on. */
  priceCents: number;
  /** Charged now: the add-on for the rest of the parent's period, prorated. */
  chargeCents: number;
  creditCents: number;
  netCents: number;
  proration: ProrationDays;
  /** The add-on's first period: from now to the parent's period end (co-terminous). */
  periodStart: Date;
  periodEnd: Date;
}

/** An add-on starts now and ends with the parent's period; its first charge is prorated. */
export function addOnFigures(parent: PeriodState, priceCents: number, at: Date): AddOnFigures {
  const days = prorationDays(parent.currentPeriodStart, parent.currentPeriodEnd, at);
  const chargeCents = prorate(priceCents, days);
  return {
    effectiveDate: at,
    priceCents,
    chargeCents,
    creditCents: 0,
    netCents: chargeCents,
    proration: days,
    periodStart: at,
    periodEnd: parent.currentPeriodEnd,
  };
}
