import { validationFailed } from '../../core/errors.js';
import type { LocaleFields } from './tables.js';

/** GS1 check digit: from the right, the digits before the last weigh 3, 1, 3, ...; the sum + check is a multiple of 10. */
export function gtinCheckDigitValid(gtin: string): boolean {
  const digits = [...gtin].map(Number);
  const check = digits.pop();
  const sum = digits.reverse().reduce((total, d, i) => total + d * (i % 2 === 0 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === check;
}

/** What the schema cannot say of one locale's fields: 400 naming the field and the rule. */
export function checkLocaleFields(fields: LocaleFields, at = ''): void {
  if (fields.gtin !== null && !gtinCheckDigitValid(fields.gtin))
    throw validationFailed(
      `${at}gtin`,
      'checkDigit',
      `${at}gtin ${fields.gtin} does not end in its GS1 check digit`,
    );
  const keys = new Set<string>();
  fields.attributes.forEach((attribute, i) => {
    const field = `${at}attributes.${i}`;
    if (keys.has(attribute.key))
      throw validationFailed(
        `${field}.key`,
        'unique',
        `${field}.key ${attribute.key} is already in the list`,
      );
    keys.add(attribute.key);
    if (typeof attribute.value !== attribute.type)
      throw validationFailed(`${field}.value`, 'type', `${field}.value must be a ${attribute.type}`);
  });
}
