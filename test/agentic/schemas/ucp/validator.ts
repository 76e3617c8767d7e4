import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// Our JSON Schemas of UCP 2026-04-08 (this folder), written from the spec's schemas, compiled
// once with Ajv's draft 2020-12 validator and the standard formats.

const dir = fileURLToPath(new URL('.', import.meta.url));
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')))
  ajv.addSchema(JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')));

export const UCP_SCHEMAS = {
  createRequest: 'https://test.local/ucp/checkout_requests.json#/$defs/create',
  updateRequest: 'https://test.local/ucp/checkout_requests.json#/$defs/update',
  completeRequest: 'https://test.local/ucp/checkout_requests.json#/$defs/complete',
  checkout: 'https://test.local/ucp/checkout.json',
  order: 'https://test.local/ucp/order.json',
  error: 'https://test.local/ucp/error_response.json',
  businessProfile: 'https://test.local/ucp/profile.json#/$defs/business',
  platformProfile: 'https://test.local/ucp/profile.json#/$defs/platform',
  searchRequest: 'https://test.local/ucp/catalog_search.json#/$defs/search_request',
  searchResponse: 'https://test.local/ucp/catalog_search.json#/$defs/search_response',
  lookupRequest: 'https://test.local/ucp/catalog_lookup.json#/$defs/lookup_request',
  lookupResponse: 'https://test.local/ucp/catalog_lookup.json#/$defs/lookup_response',
  getProductRequest: 'https://test.local/ucp/catalog_lookup.json#/$defs/get_product_request',
  getProductResponse: 'https://test.local/ucp/catalog_lookup.json#/$defs/get_product_response',
} as const;

export type UcpSchema = keyof typeof UCP_SCHEMAS;

/** The errors of `value` against one of the schemas (empty: valid). */
export function ucpErrors(schema: UcpSchema, value: unknown): ErrorObject[] {
  const validate = ajv.getSchema(UCP_SCHEMAS[schema]);
  if (!validate) throw new Error(`no schema ${schema}`);
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

/** Throws, listing what is wrong, unless `value` is valid against `schema`. */
export function assertUcp(schema: UcpSchema, value: unknown): void {
  const errors = ucpErrors(schema, value);
  if (errors.length > 0) {
    const list = errors.map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    throw new Error(`not a valid UCP ${schema}:\n${list.join('\n')}\n${JSON.stringify(value, null, 2)}`);
  }
}

/** The checkout's totals add up (checkout.md, "Verification"): every entry but `total` sums to it. */
export function totalsAddUp(totals: { type: string; amount: number }[]): boolean {
  const total = totals.find((t) => t.type === 'total');
  const sum = totals.filter((t) => t.type !== 'total').reduce((s, t) => s + t.amount, 0);
  return total !== undefined && sum === total.amount;
}
