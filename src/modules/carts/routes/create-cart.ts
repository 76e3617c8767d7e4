import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { respond } from '../../../http/operation.js';
import { createCart } from '../operations.js';
import { CartCreate, CartSchema } from '../schemas.js';
import { cartResponse, TAGS } from './shared.js';

/** Recorded from the real routes (ids replaced by fixed ones). */
export const cartActionsExample = [
  {
    rel: 'self',
    method: 'GET',
    href: '/api/v1/carts/0190b000-0000-7000-8000-000000000006',
    requiredScope: 'read',
    allowed: true,
  },
  {
    rel: 'addItem',
    method: 'POST',
    href: '/api/v1/carts/0190b000-0000-7000-8000-000000000006/items',
    requiredScope: 'commerce',
    allowed: true,
  },
  {
    rel: 'applyPromo',
    method: 'POST',
    href: '/api/v1/carts/0190b000-0000-7000-8000-000000000006/promo',
    requiredScope: 'commerce',
    allowed: true,
  },
  {
    rel: 'createAccount',
    method: 'POST',
    href: '/api/v1/accounts',
    requiredScope: 'commerce',
    allowed: true,
  },
  {
    rel: 'checkout',
    method: 'POST',
    href: '/api/v1/orders',
    requiredScope: 'commerce',
    allowed: true,
  },
];

export const cartCreatedExample = {
  data: {
    id: '0190b000-0000-7000-8000-000000000006',
    tenantId: '0190b000-0000-7000-8000-000000000001',
    sessionId: 'conversation-42',
    status: 'active',
    currency: 'USD',
    customerContext: {
      segment: null,
      locale: null,
      partner: null,
    },
    contactId: null,
    organizationId: null,
    items: [],
    subtotalCents: 0,
    discountCents: 0,
    totalCents: 0,
    promo: null,
    requiresQuote: false,
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
  },
  nextActions: cartActionsExample,
};

export const createCartRoute = defineRoute({
  method: 'POST',
  path: '/carts',
  operationId: 'createCart',
  summary: 'Create a cart',
  description:
    'Starts an `active` cart; every field is optional. Next: its `addItem` action, then `checkout` ' +
    '(POST /orders with `{ "cartId": "<cart id>" }`). Carts are not audited and emit no events.',
  tags: TAGS,
  scope: 'commerce',
  body: CartCreate,
  responses: { 201: Envelope(CartSchema, 'The new, empty cart.', cartCreatedExample) },
  handler: async (request, reply, deps) =>
    respond(deps, request, reply, (ctx, key) => createCart(deps, ctx, request.body, key), cartResponse(201)),
});
