import { Type } from 'typebox';
import { defineRoute } from '../../../../http/declared-route.js';
import { serveUcpMcp, type UcpTool } from '../../../../mcp/ucp-checkout.js';
import { GetProductRequest, LookupRequest, SearchRequest } from '../../ucp-catalog/request-schemas.js';
import { GetProductResponse, LookupResponse, SearchResponse } from '../../ucp-catalog/schemas.js';
import { UCP_MCP_PATH, UCP_REST_PATH, UCP_VERSION } from '../protocol.js';
import {
  CheckoutCompleteBody,
  CheckoutCreateBody,
  CheckoutResponse,
  CheckoutUpdateBody,
} from '../schemas/checkout.js';
import { ErrorResponse } from '../schemas/common.js';
import { OrderResponse } from '../schemas/order.js';
import { TAGS } from './responses.js';

// The UCP MCP binding's tools (checkout-mcp.md, order-mcp.md, catalog/mcp.md), each the REST
// route it names.

const Meta = (idempotent: boolean) =>
  Type.Object(
    {
      'ucp-agent': Type.Object(
        { profile: Type.String({ maxLength: 2048, description: 'The platform profile URL (https).' }) },
        { additionalProperties: true },
      ),
      'idempotency-key': idempotent
        ? Type.String({ minLength: 1, maxLength: 255, description: 'Required: makes a retry safe.' })
        : Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    },
    { additionalProperties: true, description: 'Request metadata: `ucp-agent.profile`, `idempotency-key`.' },
  );

const Id = (what: string) => Type.String({ minLength: 1, maxLength: 200, description: `The ${what} id.` });

const input = (properties: Record<string, unknown>) =>
  ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false }) as const;

const output = (schema: object) => ({ type: 'object' as const, anyOf: [schema, ErrorResponse] });

const checkoutPath = (args: Record<string, unknown>, suffix = '') =>
  `${UCP_REST_PATH}/checkout-sessions/${encodeURIComponent(String(args.id))}${suffix}`;

const read = { readOnlyHint: true, openWorldHint: false } as const;
const write = (destructive: boolean, idempotent = false) =>
  ({
    destructiveHint: destructive,
    ...(idempotent ? { idempotentHint: true } : {}),
    openWorldHint: false,
  }) as const;

export const UCP_TOOLS: UcpTool[] = [
  {
    name: 'create_checkout',
    description: 'Create a checkout session for `checkout.line_items` (item.id = product id).',
    inputSchema: input({ meta: Meta(false), checkout: CheckoutCreateBody }),
    outputSchema: output(CheckoutResponse),
    annotations: write(false),
    method: 'POST',
    path: () => `${UCP_REST_PATH}/checkout-sessions`,
    body: (args) => args.checkout,
  },
  {
    name: 'get_checkout',
    description: 'Get a checkout session as it stands.',
    inputSchema: input({ meta: Meta(false), id: Id('checkout session') }),
    outputSchema: output(CheckoutResponse),
    annotations: read,
    method: 'GET',
    path: (args) => checkoutPath(args),
  },
  {
    name: 'update_checkout',
    description: 'Replace a checkout session (full replacement: what is left out is cleared).',
    inputSchema: input({ meta: Meta(false), id: Id('checkout session'), checkout: CheckoutUpdateBody }),
    outputSchema: output(CheckoutResponse),
    annotations: write(false, true),
    method: 'PUT',
    path: (args) => checkoutPath(args),
    body: (args) => args.checkout,
  },
  {
    name: 'complete_checkout',
    description: 'Pay with `checkout.payment.instruments` (handler `sandbox_card`) and place the order.',
    inputSchema: input({ meta: Meta(true), id: Id('checkout session'), checkout: CheckoutCompleteBody }),
    outputSchema: output(CheckoutResponse),
    annotations: write(false),
    method: 'POST',
    path: (args) => checkoutPath(args, '/complete'),
    body: (args) => args.checkout,
  },
  {
    name: 'cancel_checkout',
    description: 'Cancel an open checkout session.',
    inputSchema: input({ meta: Meta(true), id: Id('checkout session') }),
    outputSchema: output(CheckoutResponse),
    annotations: write(true),
    method: 'POST',
    path: (args) => checkoutPath(args, '/cancel'),
    body: () => ({}),
  },
  {
    name: 'get_order',
    description: 'Get the current state of an order a checkout placed.',
    inputSchema: input({ meta: Meta(false), id: Id('order') }),
    outputSchema: output(OrderResponse),
    annotations: read,
    method: 'GET',
    path: (args) => `${UCP_REST_PATH}/orders/${encodeURIComponent(String(args.id))}`,
  },
];

/** The catalog's tools (catalog/mcp.md): `catalog` is the REST body. */
const catalogTool = (
  name: string,
  description: string,
  request: object,
  response: object,
  path: string,
): UcpTool => ({
  name,
  description,
  inputSchema: input({ meta: Meta(false), catalog: request }),
  outputSchema: output(response),
  annotations: read,
  method: 'POST',
  path: () => `${UCP_REST_PATH}/catalog/${path}`,
  body: (args) => args.catalog,
});

export const UCP_CATALOG_TOOLS: UcpTool[] = [
  catalogTool(
    'search_catalog',
    'Search published products by `catalog.query` and/or `catalog.filters` (categories, price); paged by `catalog.pagination`. A variant id is what a checkout line’s item.id takes.',
    SearchRequest,
    SearchResponse,
    'search',
  ),
  catalogTool(
    'lookup_catalog',
    'Products by `catalog.ids` (product ids or handles, at most 50); ids not found are info messages `not_found`.',
    LookupRequest,
    LookupResponse,
    'lookup',
  ),
  catalogTool(
    'get_product',
    'One product in full by `catalog.id`; not found is a result with `ucp.status: "error"`.',
    GetProductRequest,
    GetProductResponse,
    'product',
  ),
];

const INSTRUCTIONS = `UCP ${UCP_VERSION} shopping service (catalog search and lookup, checkout and order capabilities, with the discount and fulfillment extensions). Find products with search_catalog or lookup_catalog, then check out their variant ids. Every call carries meta["ucp-agent"].profile, the platform profile URL; complete_checkout and cancel_checkout also meta["idempotency-key"]. Results are UCP bodies in structuredContent; read messages[] (severity) and status before acting.`;

export const ucpMcp = defineRoute({
  method: 'POST',
  path: UCP_MCP_PATH,
  prefix: '',
  public: false,
  operationId: 'ucpMcp',
  summary: 'UCP: the MCP binding (JSON-RPC over Streamable HTTP)',
  description:
    'UCP’s MCP transport: tools search_catalog, lookup_catalog, get_product, create_checkout, get_checkout, ' +
    'update_checkout, complete_checkout, cancel_checkout and get_order, each the REST operation under /ucp/v1 ' +
    'with the same API key. ' +
    'Discovery failures are JSON-RPC error -32001, protocol errors -32000.',
  tags: TAGS,
  scope: 'read',
  responses: { 200: Type.Unknown({ description: 'A JSON-RPC response.' }) },
  handler: async (request, reply, deps) =>
    serveUcpMcp(request, reply, {
      tools: [...UCP_CATALOG_TOOLS, ...UCP_TOOLS],
      instructions: INSTRUCTIONS,
      allowedOrigins: [new URL(deps.config.publicBaseUrl).hostname, 'localhost', '127.0.0.1', '[::1]'],
    }),
});
