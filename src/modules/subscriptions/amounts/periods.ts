/**
 * Billing periods and proration: pure functions, integer cents, UTC.
 *
 * Periods: the n-th period ends at `anchor + n intervals`, where adding months keeps the
 * anchor's day of month and time, clamped to the month's last day (anchor Jan 31: Feb 28 or 29,
 * Mar 31, Apr 30...). Counting from the anchor, not from the previous end, means a clamp never
 * loses the day for later periods.
 *
 * Proration (documented in docs/conformance.md):
 * - day count: actual days, on UTC calendar dates. A period has `total` = days from the start's
 *   date to the end's date; at time `at` the `remaining` days are from `at`'s date to the end's
 *   date, clamped to [0, total]. The day of the change counts as remaining (the customer has it).
 * - amount for the remaining days: `amount * remaining / total`, rounded half up to a whole
 *   cent, computed in integers. Credit and charge are each rounded; net = charge - credit.
 */

import type { BillingInterval } from '../tables.js';

const DAY_MS = 86_400_000;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/** `anchor` plus `months` months, the day clamped to the target month's length. */
export function addMonths(anchor: Date, months: number): Date {
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + months;
  const year = y + Math.floor(m / 12);
  const month = ((m % 12) + 12) % 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  return new Date(
    Date.UTC(
      year,
      month,
      day,
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds(),
    ),
  );
}

export const intervalMonths = (interval: BillingInterval) => (interval === 'year' ? 12 : 1);

/** End of the `n`-th period (n >= 1) counted from `anchor`. */
export function periodEnd(anchor: Date, interval: BillingInterval, n: number): Date {
  return addMonths(anchor, n * intervalMonths(interval));
}

/** The period after the one ending at `end`: its start is `end`, its end the next boundary. */
export function nextPeriod(anchor: Date, interval: BillingInterval, end: Date): { start: Date; end: Date } {
  let n = 1;
  while (periodEnd(anchor, interval, n).getTime() <= end.getTime()) n++;
  return { start: end, end: periodEnd(anchor, interval, n) };
}

const utcDay = (at: Date) => Math.floor(at.getTime() / DAY_MS);

export interface ProrationDays {
  remaining: number;
  total: number;
}

export function prorationDays(start: Date, end: Date, at: Date): ProrationDays {
  const total = Math.max(1, utcDay(end) - utcDay(start));
  const remaining = Math.min(total, Math.max(0, utcDay(end) - utcDay(at)));
  return { remaining, total };
}

/** `amountCents * remaining / total`, half up, in integers (amounts stay far below 2^53 / 732). */
export function prorate(amountCents: number, days: ProrationDays): number {
  return Math.floor((2 * amountCents * days.remaining + days.total) / (2 * days.total));
}
