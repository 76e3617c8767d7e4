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
