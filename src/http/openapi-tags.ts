/**
 * The document's tags: in the order of the typical flow (discover, catalog, account, cart, order,
 * pay, subscribe), then what a buyer uses around it, integration, and the administration groups
 * last, each tag with a description, grouped in `x-tagGroups`
 * (the sections of the reference page's sidebar). A route's tags must be listed here:
 * `test/platform/openapi.test.ts` checks every operation's tag against this list.
 */

export interface TagGroup {
  name: string;
  tags: { name: string; description: string }[];
}

export const TAG_GROUPS: TagGroup[] = [
  {
    name: 'Start here',
    tags: [
      {
        name: 'Discovery',
        description:
          'What this key may do and where everything is: the manifest (tenant, scopes, rate tier, billing capabilities), the operations and limits, and this OpenAPI document. The typical flow starts with `getManifest`.',
      },
    ],
  },
  {
    name: 'Buy',
    tags: [
      {
        name: 'Catalog',
        description:
          'The storefront: the active, published products with their charges and entitlements at list prices, and search. Step 2 of the typical flow (`getCatalog`).',
      },
      {
        name: 'Accounts',
        description:
          'The customer: create or find the account (linked to its billing account by `externalId`), then read its invoices, subscriptions and payment methods from the billing system.',
      },
      {
        name: 'Carts',
        description:
          'Build the purchase: create a cart, add and remove lines, apply a promotion code. Every change re-prices the whole cart. A cart becomes an order once (`createOrder` with `cartId`).',
      },
      {
        name: 'Orders',
        description:
          'Create an order from a cart (or from lines), read it with its invoice and payment state, list and update orders. The order’s `nextActions` say how to pay (`payInvoice`).',
      },
      {
        name: 'Payments',
        description:
          'Pay an invoice (a payment session), complete the session with proof of payment, list and read sessions, refund a payment. The last steps of the typical flow.',
      },
      {
        name: 'Subscriptions',
        description:
          'Recurring products: create a subscription (or buy an add-on), read and list, change plan or quantity, cancel, renew. Previews show the amounts before a change.',
      },
      {
        name: 'Previews',
        description:
          'What a subscription change would cost before it is made: plan change, add-on and cancellation, priced by the billing system. Nothing changes.',
      },
      {
        name: 'Entitlements',
        description:
          'What an account may use because of what it bought: its entitlements, and a yes/no check for one feature.',
      },
      {
        name: 'Pricing',
        description:
          'The price a product has for a customer context (price rules, charge math, active offers), as carts price their lines.',
      },
      {
        name: 'Product content',
        description:
          'A product’s descriptions, media and attributes per locale, with their versions: read by buyers, written by admins.',
      },
      {
        name: 'Shipping',
        description:
          'The active shipping options for a country and currency, cheapest first, with delivery estimates.',
      },
      {
        name: 'Payment methods',
        description: 'Store a payment-method reference for an account, read it, make it the default.',
      },
      {
        name: 'Credits',
        description:
          'An account’s credit balance per currency, granting credit (admin) and applying it to an open invoice.',
      },
      {
        name: 'Tags',
        description: 'Set and delete key/value tags on accounts, orders, subscriptions and payment sessions.',
      },
    ],
  },
  {
    name: 'Integrate',
    tags: [
      {
        name: 'Webhooks',
        description:
          'Subscribe a URL to events, send it a test event, rotate its signing secret, see its deliveries and replay them. Deliveries are signed and retried with backoff.',
      },
      {
        name: 'Checkout sessions',
        description:
          'Checkout sessions that agent platforms open through the ACP and UCP protocol bindings, as the merchant sees them: lines, totals, messages, status and, once completed, the order.',
      },
      {
        name: 'Seller',
        description:
          'How the tenant presents itself in agentic checkouts (ACP, UCP): name, support contact, policy links.',
      },
      {
        name: 'Content',
        description:
          'The tenant’s content entries (pages, snippets) with their versions, managed by admins; published entries are readable with any key.',
      },
    ],
  },
  {
    name: 'Administration',
    tags: [
      { name: 'API keys', description: 'Issue, list, read and revoke the tenant’s API keys.' },
      { name: 'Tenant admin', description: 'The calling tenant’s name and its opt-in settings.' },
      {
        name: 'Console users',
        description:
          'The people who sign in to the tenant’s console: invite with a one-time link, change role or status, reset a password, sign out everywhere; the roles and what each may do.',
      },
      {
        name: 'Catalog admin',
        description:
          'Manage products and their charges, price rules, offers, promotion codes, plan links and plan-change rules, partners, stock, and the ACP product feed exported to agent platforms.',
      },
      {
        name: 'Billing admin',
        description:
          'Connect the tenant’s billing system; open accounts and issue, void or write off invoices in the built-in engine; review billing intents.',
      },
      {
        name: 'Payment provider admin',
        description: 'Configure the tenant’s payment provider, and simulate its events in the sandbox.',
      },
      {
        name: 'Policies admin',
        description:
          'Rules guarding an operation (order creation, order update, plan change): a JSONLogic condition that blocks it (403 `policy_blocked`), or allows it as an exception.',
      },
      { name: 'Shipping admin', description: 'Define the shipping options and their prices.' },
      {
        name: 'Audit',
        description: 'Who did what, when: the tenant’s audit log, with the request id of each change.',
      },
      {
        name: 'Overview',
        description:
          'The tenant at a glance, as the web console shows it: recent orders, payments, refunds and revenue, checkout sessions, webhook health, open intents, and recent error responses.',
      },
    ],
  },
];

/** Sets the document's `tags` and `x-tagGroups` from the groups above. */
export function addTagGroups<T extends object>(document: T): T {
  const doc = document as { tags?: unknown; 'x-tagGroups'?: unknown };
  doc.tags = TAG_GROUPS.flatMap((group) => group.tags);
  doc['x-tagGroups'] = TAG_GROUPS.map((group) => ({ name: group.name, tags: group.tags.map((t) => t.name) }));
  return document;
}
