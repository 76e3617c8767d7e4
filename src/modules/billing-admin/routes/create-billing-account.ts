import { BillingAccountSchema } from '../../../billing/index.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { openBillingAccount } from '../operations.js';
import { CreateBillingAccountBody } from '../schemas.js';
import { accountResponse, tags } from './shared.js';

export const createBillingAccountRoute = defineRoute({
  method: 'POST',
  path: '/admin/billing/accounts',
  operationId: 'createBillingAccount',
  summary: 'Open a built-in billing account',
  description:
    'Opens an account in the built-in billing engine (id `ba_` + 20 characters [0-9a-z], number `A-000001`...). ' +
    'Link it to a local account by setting that account’s `externalId` to the id.',
  tags,
  scope: 'admin',
  body: CreateBillingAccountBody,
  responses: { 201: Envelope(BillingAccountSchema, 'The new billing account.'), ...errorResponses(502) },
  handler: async (request, reply, deps) => {
    const { name, currency, contacts } = request.body;
    const input = {
      name,
      currency,
      contacts: (contacts ?? []).map((c) => ({
        name: c.name ?? null,
        email: c.email ?? null,
        phone: c.phone ?? null,
      })),
    };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => openBillingAccount(deps, ctx, input, key),
      accountResponse,
    );
  },
});
