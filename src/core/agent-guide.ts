import type { Scope } from './scopes.js';

/**
 * What an agent needs to know once, in one place: the typical flow, the scopes and the rules
 * several operations share. `x-agent` in the OpenAPI document, the MCP server's instructions and
 * docs/agents.md are all rendered from here (a test holds the doc to it), so they cannot differ.
 */

/** The typical flow of SPEC.md section 1: the operations (MCP tools) an agent calls, in order. */
export const TYPICAL_FLOW = [
  'getManifest',
  'getCatalog',
  'createAccount',
  'createCart',
  'addCartItem',
  'createOrder',
  'payInvoice',
  'completePaymentSession',
] as const;

export const TYPICAL_FLOW_DESCRIPTION =
  'Discover (manifest, catalog), create or find the account (linked to its billing account by `externalId`), ' +
  'build a cart, create the order from it (`cartId`), pay the invoice the order returns (`payInvoice`) and ' +
  'complete the payment session with proof of payment. Subscription products go through `createSubscription`. ' +
  'At each step, call the next action of the previous result: its `operationId` with its `arguments`.';

/** A rule several operations state; an MCP tool description names it instead of repeating it. */
export interface SharedRule {
  title: string;
  text: string;
}

export const CART_PRICING: SharedRule = {
  title: 'Cart pricing',
  text:
    'Every change re-prices all lines for the cart’s customerContext (price rules, charge math, active offers, as ' +
    'GET /pricing/resolve) and re-checks the promotion code: line `totalCents` is after offers, `listCents` before; ' +
    'the cart’s `subtotalCents` is the sum of `listCents`, the code applies to the sum of line totals, ' +
    '`discountCents` is offers plus the code, `totalCents` = subtotalCents - discountCents (never below 0). ' +
    'Passthrough charges are not in the totals: they are priced by the billing system at checkout (the line and ' +
    'the cart then have `requiresQuote: true`). A code that no longer applies stays on the cart with ' +
    '`applies: false`, discount 0 and the `reason`.',
};

export const CART_CHECKED_OUT: SharedRule = {
  title: 'Checked-out carts',
  text:
    'A `checked_out` cart (an order was created from it) cannot change: 409 `cart_checked_out`, whose ' +
    '`nextActions` offer `createCart`.',
};

export const ACCOUNT_IDS: SharedRule = {
  title: 'Account ids',
  text:
    'An account id is either an internal organization id (a UUID, returned by POST /accounts) or a ' +
    'billing-system account id in the format of the tenant’s active billing adapter (the built-in engine uses ' +
    '`ba_` followed by 20 characters [0-9a-z]).',
};

export const BILLING_SUB_LISTS: SharedRule = {
  title: 'Billing sub-lists',
  text:
    'The billing-system account is resolved in this order: no active billing integration for the tenant -> 404 ' +
    '(whatever the id); an account id (UUID) of this tenant -> the billing account named by its `externalId`, ' +
    'or 404 when the account has no `externalId` or it is not a billing account id (a local account without a ' +
    'billing id has no billing data); a billing-system account id -> that account (404 if the billing system ' +
    'does not know it); any other UUID -> 404; any other value -> 400 `validation_failed` naming `path.id` ' +
    '(invalid billing account id format). Data is read live from the billing system, never stored here; ' +
    'an outage of the billing system is 502 `billing_unavailable` (retry later).',
};

export const PAYING_ACCOUNTS: SharedRule = {
  title: 'Paying accounts',
  text:
    'The paying account. With an invoice: the invoice’s billing account, or a local account (id) linked to it ' +
    'by `externalId`, which is stored as the billing account; any other account is 400. Without an invoice: ' +
    'any account reference.',
};

export const WEBHOOK_EVENTS: SharedRule = {
  title: 'Webhook event lists',
  text:
    'Event types to receive (1-50, no duplicates), from GET /webhooks/event-types, or `*` for every type ' +
    '(including types added later). An unknown type gives 400 naming its position (`events.<i>`).',
};

export const PREVIEW_IDS: SharedRule = {
  title: 'Preview ids',
  text:
    'From a preview of this very change (`POST /preview/...`): the change then runs at exactly the previewed ' +
    'figures and effective date, or is 409 when the subscription or its prices changed since; 400 once expired ' +
    '(15 minutes).',
};

export const WEBHOOK_TARGETS: SharedRule = {
  title: 'Webhook URLs',
  text:
    'Where deliveries are POSTed: an absolute `https://` URL without credentials, at most 2048 characters, ' +
    'whose host resolves only to public addresses (loopback, private, link-local and reserved ones are ' +
    'refused with 400 rule `public_target`; a host that does not resolve gives rule `resolvable`).',
};

export const WEBHOOK_DELIVERIES: SharedRule = {
  title: 'Webhook deliveries',
  text:
    'Each delivery is a POST of `{ id, event, timestamp, tenantId, data }` signed in `X-Webhook-Signature: ' +
    'sha256=<hex HMAC-SHA256 of the raw body keyed by the secret>` and in the Standard Webhooks headers ' +
    '(`webhook-id`, `webhook-timestamp`, `webhook-signature`), so their libraries verify it as well. A 2xx ' +
    'within 10 s is success; otherwise it is retried (5 attempts, 2/4/8/16 s apart) and then dead-lettered.',
};

export const LIST_PAGING: SharedRule = {
  title: 'Paging',
  text:
    'Without `limit` the whole list comes in one response. With `limit` (1-200) a page comes back with ' +
    '`meta.nextCursor` (null on the last page) and a `next` action; pass the cursor as `cursor` with the same ' +
    'filters for the next page. Cursors are opaque and signed: pass them back unchanged (an edited cursor is ' +
    '400 naming `query.cursor`); they belong to the tenant and stay valid while rows are added.',
};

export const TAG_FILTERS: SharedRule = {
  title: 'Tag filters',
  text: 'Only rows tagged `key:value`; repeat for AND (two values of one key match nothing).',
};

export const CANCELLATION_REFUNDS: SharedRule = {
  title: 'Giving back unused time',
  text:
    'Unused time (the preview’s figure) as account `credit` or a `refund` of the last payments; default ' +
    '`none`. `immediate`: the rest of the period and any period billed early; `end_of_period`: only a period ' +
    'billed early, then not run (else 400).',
};

/** The rules tool descriptions share, in the order the MCP instructions list them. */
export const SHARED_RULES: readonly SharedRule[] = [
  CART_PRICING,
  CART_CHECKED_OUT,
  ACCOUNT_IDS,
  BILLING_SUB_LISTS,
  PAYING_ACCOUNTS,
  PREVIEW_IDS,
  WEBHOOK_TARGETS,
  WEBHOOK_EVENTS,
  WEBHOOK_DELIVERIES,
  LIST_PAGING,
  TAG_FILTERS,
  CANCELLATION_REFUNDS,
];

/** How a tool description or argument points to a shared rule instead of repeating it. */
export const ruleReference = (rule: SharedRule) => `See “${rule.title}”.`;

export const IDEMPOTENCY_RULE =
  'Write tools take an optional `idempotencyKey` (1-255 characters, sent as the Idempotency-Key header): a retry with the same key ' +
  'and arguments within 24 h returns the first result without running the operation again; the same key with ' +
  'other arguments is `idempotency_conflict`. Use a fresh random value per intended change.';

interface DocumentOperation {
  tags?: string[];
  'x-required-scope'?: Scope | null;
}

/**
 * What each scope allows, read off the operations themselves (the areas whose operations need
 * exactly that scope), so the summary cannot list an area under the wrong scope.
 */
export function scopeSummaries(
  paths: Record<string, Record<string, DocumentOperation>>,
): Record<Scope, string> {
  const areas: Record<Scope, Set<string>> = { read: new Set(), commerce: new Set(), admin: new Set() };
  for (const item of Object.values(paths))
    for (const op of Object.values(item)) {
      const scope = op['x-required-scope'];
      if (scope) for (const tag of op.tags ?? []) areas[scope].add(tag);
    }
  const list = (scope: Scope) => [...areas[scope]].sort().join(', ');
  return {
    read: `Reads, previews and price resolution: ${list('read')}.`,
    commerce: `Everything read allows, plus the writes of: ${list('commerce')}.`,
    admin: `Everything commerce allows, plus: ${list('admin')}.`,
  };
}

/** How tool descriptions and arguments name the sections of the guide. */
const RULE_REFERENCES =
  'Tool descriptions and arguments name the sections below instead of repeating them: “See “Cart ' +
  'pricing”.” means the section of that title. An `id` argument that is unknown or another tenant’s is ' +
  '404 `not_found` unless the tool’s description says otherwise.';

/** The guide as Markdown: the MCP server's instructions and the body of docs/agents.md. */
export function renderAgentGuide(scopes: Record<Scope, string>): string {
  return [
    '## Typical flow',
    '',
    TYPICAL_FLOW.map((id, i) => `${i + 1}. \`${id}\``).join('\n'),
    '',
    TYPICAL_FLOW_DESCRIPTION,
    '',
    '## Scopes',
    '',
    (Object.entries(scopes) as [Scope, string][])
      .map(([scope, text]) => `- \`${scope}\`: ${text}`)
      .join('\n'),
    '',
    '## Rules named in descriptions',
    '',
    RULE_REFERENCES,
    '',
    '## Idempotency',
    '',
    IDEMPOTENCY_RULE,
    '',
    ...SHARED_RULES.flatMap((rule) => [`## ${rule.title}`, '', rule.text, '']),
  ].join('\n');
}

/** docs/agents.md: the guide under a heading (a test holds the file to this). */
export function renderAgentDoc(scopes: Record<Scope, string>): string {
  return [
    '# For agents',
    '',
    'What an agent needs before its first call. The same text is the MCP server’s instructions, and',
    '`x-agent` in the OpenAPI document carries the flow and the scopes: all three come from',
    '`src/core/agent-guide.ts` (`npx vitest run test/platform/mcp.test.ts -u` rewrites this file).',
    '',
    renderAgentGuide(scopes),
  ].join('\n');
}
