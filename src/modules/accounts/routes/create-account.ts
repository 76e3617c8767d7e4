import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { createAccount } from '../operations.js';
import { AccountCreate, AccountSchema } from '../schemas.js';
import { accountResponse, TAGS } from './shared.js';

/** A create recorded from the real route (ids replaced by fixed ones). */
export const accountCreatedExample = {
  data: {
    id: '0190b000-0000-7000-8000-000000000005',
    tenantId: '0190b000-0000-7000-8000-000000000001',
    name: 'Initech',
    externalId: 'ba_9f2k4m6p8r0t2v4x6z8b',
    email: 'ap@initech.example',
    phone: null,
    website: null,
    industry: null,
    tags: {},
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
  },
  nextActions: [
    {
      rel: 'self',
      method: 'GET',
      href: '/api/v1/accounts/0190b000-0000-7000-8000-000000000005',
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'update',
      method: 'PATCH',
      href: '/api/v1/accounts/0190b000-0000-7000-8000-000000000005',
      requiredScope: 'commerce',
      allowed: true,
    },
    {
      rel: 'invoices',
      method: 'GET',
      href: '/api/v1/accounts/0190b000-0000-7000-8000-000000000005/invoices',
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'subscriptions',
      method: 'GET',
      href: '/api/v1/accounts/0190b000-0000-7000-8000-000000000005/subscriptions',
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'paymentMethods',
      method: 'GET',
      href: '/api/v1/accounts/0190b000-0000-7000-8000-000000000005/payment-methods',
      requiredScope: 'read',
      allowed: true,
    },
  ],
};

/** What a cart offers next (the same after creation and after adding an item). */

export const createAccountRoute = defineRoute({
  method: 'POST',
  path: '/accounts',
  operationId: 'createAccount',
  summary: 'Create an account',
  description:
    'Creates a tenant-owned account (organization) with a UUID `id`. Only `name` is required; optional ' +
    'fields may be null. `externalId` cannot change later; one already held by another account is 409 ' +
    '`conflict` naming it (nextActions `getAccount`). Emits `account.created`.',
  tags: TAGS,
  scope: 'commerce',
  body: AccountCreate,
  responses: {
    201: Envelope(AccountSchema, 'The new account.', accountCreatedExample),
    ...errorResponses(409),
  },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) => createAccount(deps, ctx, request.body, key),
      accountResponse(201, await deps.billing.forTenant(deps.db, requireCtx(request).tenantId)),
    ),
});
