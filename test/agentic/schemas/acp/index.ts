import fs from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

// Our JSON Schemas of ACP 2026-04-17 (checkout.json, delegate_payment.json, written from the
// protocol's own), and one check: a body is valid for a named definition, or the test fails
// listing each violation with its path. feed.json is the protocol's own, unchanged:
// spec/2026-04-17/json-schema/schema.feed.json of github.com/agentic-commerce-protocol/agentic-commerce-protocol
// as released in commit 9abf303f48088d170503a54502d612b8b1997897 (RELEASE: 2026-04-17).

const load = (file: string) => JSON.parse(fs.readFileSync(new URL(file, import.meta.url), 'utf8'));
const checkout = load('./checkout.json');
const delegate = load('./delegate_payment.json');
const feed = load('./feed.json');

const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(checkout);
ajv.addSchema(delegate);
ajv.addSchema(feed);

export type CheckoutDefinition =
  | 'CheckoutSession'
  | 'CheckoutSessionWithOrder'
  | 'CheckoutSessionCreateRequest'
  | 'CheckoutSessionUpdateRequest'
  | 'CheckoutSessionCompleteRequest'
  | 'CancelSessionRequest'
  | 'Error'
  | 'DiscoveryResponse';

export type DelegateDefinition = 'DelegatePaymentRequest' | 'DelegatePaymentResponse' | 'Error';

function violations(schemaId: string, definition: string, body: unknown): string[] {
  const validate = ajv.getSchema(`${schemaId}#/$defs/${definition}`);
  if (!validate) throw new Error(`no definition ${definition} in ${schemaId}`);
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
  );
}

/** Fails the test unless `body` is valid for the checkout definition. */
export function expectAcp(definition: CheckoutDefinition, body: unknown): void {
  expect(violations(checkout.$id, definition, body), `${definition}: ${JSON.stringify(body)}`).toEqual([]);
}

/** Fails the test unless `body` is valid for the delegate_payment definition. */
export function expectDelegate(definition: DelegateDefinition, body: unknown): void {
  expect(violations(delegate.$id, definition, body), `${definition}: ${JSON.stringify(body)}`).toEqual([]);
}

/** Whether `body` is valid (for the tests that check a schema refuses something). */
export const isAcp = (definition: CheckoutDefinition, body: unknown) =>
  violations(checkout.$id, definition, body).length === 0;

export type FeedDefinition = 'Product' | 'Variant' | 'ProductsResponse' | 'UpsertProductsRequest';

/** Fails the test unless `body` is valid for the protocol's feed definition (a feed line: `Product`). */
export function expectFeed(definition: FeedDefinition, body: unknown): void {
  expect(violations(feed.$id, definition, body), `${definition}: ${JSON.stringify(body)}`).toEqual([]);
}

/** Whether `body` is valid for the feed definition (for the tests that check the schema refuses something). */
export const isFeed = (definition: FeedDefinition, body: unknown) =>
  violations(feed.$id, definition, body).length === 0;
