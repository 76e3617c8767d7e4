import { validationFailed } from './errors.js';

const exponents = new Map<string, number>();

/** Digits after the decimal point of a currency's major unit (USD 2, JPY 0, BHD 3), from ICU. */
export function currencyExponent(currency: string): number {
  let exponent = exponents.get(currency);
  if (exponent === undefined) {
    try {
      exponent =
        new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
          .maximumFractionDigits ?? 2;
    } catch {
      exponent = 2;
    }
    exponents.set(currency, exponent);
  }
  return exponent;
}

/**
 * Minor units as the decimal number the API shows for major-unit fields (invoice `amount`, a
 * tier's `price`). Only for rendering: all arithmetic stays in integer minor units.
 */
export function toDecimal(minor: number, currency: string): number {
  return Number((minor / 10 ** currencyExponent(currency)).toFixed(currencyExponent(currency)));
}

/** The largest single amount an input may carry, in minor units: a unit price, a payment, an invoice line's unit amount. */
export const MAX_AMOUNT_CENTS = 1_000_000_000;

/**
 * The largest amount we compute or store, in minor units: a line (unit price x quantity), a cart,
 * an order, an invoice. 10^13 (100 billion in a two-decimal currency) is exact in a JavaScript
 * number and far inside PostgreSQL's bigint, so sums of such amounts never lose a cent.
 */
export const MAX_TOTAL_CENTS = 10_000_000_000_000;

const tooLarge = (field: string, value: number) =>
  validationFailed(
    field,
    'maximum',
    `${field} makes an amount of ${value} minor units, above ${MAX_TOTAL_CENTS}, the largest amount handled`,
  );

/** `value` when it is a total we can hold; else 400 validation_failed naming `field` (rule `maximum`). */
export function checkedTotal(value: number, field: string): number {
  if (!Number.isSafeInteger(value) || Math.abs(value) > MAX_TOTAL_CENTS) throw tooLarge(field, value);
  return value;
}

/** The sum of `values`, each and every partial sum checked like `checkedTotal`. */
export function checkedSum(values: readonly number[], field: string): number {
  let sum = 0;
  for (const v of values) sum = checkedTotal(sum + checkedTotal(v, field), field);
  return sum;
}
