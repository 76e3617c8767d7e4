import { PAYMENT_HANDLERS } from '../model.js';

// The facts of UCP release 2026-04-08 this binding serves: the version, the names of the service,
// capabilities and payment handler, and the spec and schema URLs a profile points to (their origin
// matches the name's authority, as the spec's namespace binding requires).

export const UCP_VERSION = '2026-04-08';

/** Where our UCP REST operations live, below the public base URL. */
export const UCP_REST_PATH = '/ucp/v1';
/** Where the UCP MCP binding (JSON-RPC over Streamable HTTP) lives. */
export const UCP_MCP_PATH = '/ucp/mcp';

export const SHOPPING_SERVICE = 'dev.ucp.shopping';

export const CAPABILITY = {
  checkout: 'dev.ucp.shopping.checkout',
  order: 'dev.ucp.shopping.order',
  discount: 'dev.ucp.shopping.discount',
  fulfillment: 'dev.ucp.shopping.fulfillment',
  catalogSearch: 'dev.ucp.shopping.catalog.search',
  catalogLookup: 'dev.ucp.shopping.catalog.lookup',
} as const;

export type CapabilityName = (typeof CAPABILITY)[keyof typeof CAPABILITY];

const SPEC = `https://ucp.dev/${UCP_VERSION}/specification`;
const SCHEMAS = `https://ucp.dev/${UCP_VERSION}/schemas`;
const SERVICES = `https://ucp.dev/${UCP_VERSION}/services`;

/** A capability as a business profile declares it. */
export interface CapabilityDeclaration {
  version: string;
  spec: string;
  schema: string;
  extends?: string;
}

/**
 * Ours, in the order the profile lists them; extensions extend checkout (we have no cart). The
 * catalog's two capabilities are roots of their own (catalog/index.md).
 */
export const BUSINESS_CAPABILITIES: Record<CapabilityName, CapabilityDeclaration> = {
  [CAPABILITY.checkout]: {
    version: UCP_VERSION,
    spec: `${SPEC}/checkout`,
    schema: `${SCHEMAS}/shopping/checkout.json`,
  },
  [CAPABILITY.order]: {
    version: UCP_VERSION,
    spec: `${SPEC}/order`,
    schema: `${SCHEMAS}/shopping/order.json`,
  },
  [CAPABILITY.discount]: {
    version: UCP_VERSION,
    spec: `${SPEC}/discount`,
    schema: `${SCHEMAS}/shopping/discount.json`,
    extends: CAPABILITY.checkout,
  },
  [CAPABILITY.fulfillment]: {
    version: UCP_VERSION,
    spec: `${SPEC}/fulfillment`,
    schema: `${SCHEMAS}/shopping/fulfillment.json`,
    extends: CAPABILITY.checkout,
  },
  [CAPABILITY.catalogSearch]: {
    version: UCP_VERSION,
    spec: `${SPEC}/catalog/search`,
    schema: `${SCHEMAS}/shopping/catalog_search.json`,
  },
  [CAPABILITY.catalogLookup]: {
    version: UCP_VERSION,
    spec: `${SPEC}/catalog/lookup`,
    schema: `${SCHEMAS}/shopping/catalog_lookup.json`,
  },
};

/** The shopping service's transport bindings we serve, at `base` (the public base URL). */
export function shoppingServices(base: string) {
  const common = { version: UCP_VERSION, spec: `${SPEC}/overview` };
  return [
    {
      ...common,
      transport: 'rest' as const,
      endpoint: `${base}${UCP_REST_PATH}`,
      schema: `${SERVICES}/shopping/rest.openapi.json`,
    },
    {
      ...common,
      transport: 'mcp' as const,
      endpoint: `${base}${UCP_MCP_PATH}`,
      schema: `${SERVICES}/shopping/mcp.openrpc.json`,
    },
  ];
}

/**
 * The sandbox card handler: the platform "tokenises" a card by choosing one of three test tokens
 * and sends it as the instrument's credential; the checkout core decides what each one does.
 */
export const SANDBOX_CARD = {
  name: 'com.example.sandbox_card',
  id: PAYMENT_HANDLERS.sandboxCard,
  spec: 'https://example.com/ucp/handlers/sandbox_card',
  schema: 'https://example.com/ucp/handlers/sandbox_card/schema.json',
  tokens: { authorize: 'success_token', decline: 'fail_token', escalate: 'escalate_token' },
} as const;

/** The payment handlers a checkout offers, keyed by handler name (the profile and every checkout response). */
export function paymentHandlers(environment: string) {
  return {
    [SANDBOX_CARD.name]: [
      {
        id: SANDBOX_CARD.id,
        version: UCP_VERSION,
        spec: SANDBOX_CARD.spec,
        schema: SANDBOX_CARD.schema,
        available_instruments: [{ type: 'card' }],
        config: { environment },
      },
    ],
  };
}

/** Handler ids a completion may name: the ones we advertise. */
export const ADVERTISED_HANDLER_IDS: readonly string[] = [SANDBOX_CARD.id];
