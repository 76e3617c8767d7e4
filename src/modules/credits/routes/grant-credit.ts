import type { RequestContext } from '../../../http/context.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { type Presented, respond } from '../../../http/operation.js';
import { grantCredit } from '../operations.js';
import { CreditEntrySchema, creditEntryExample, GrantCreditBody } from '../schemas.js';
import type { CreditEntryApi } from '../service.js';
import { AccountParams, ledgerActions, requireAccount, TAGS } from './shared.js';

export const grantCreditRoute = defineRoute({
  method: 'POST',
  path: '/accounts/:id/credits',
  operationId: 'grantCredit',
  summary: 'Grant credit to an account',
  description:
    'Adds credit in `currency`; it pays the account’s invoices as they are issued (tenant setting ' +
    '`autoApplyCredits`, on by default) or through POST /invoices/{id}/apply-credit. Emits `credit.granted`. ' +
    'Only an account linked to a billing account (`externalId`) holds credit: another is 409 `conflict`.',
  tags: TAGS,
  scope: 'admin',
  createdAt: [{ collection: '/api/v1/accounts', id: '$response.body#/data/accountId' }],
  params: AccountParams,
  body: GrantCreditBody,
  responses: {
    201: Envelope(CreditEntrySchema, 'The grant.', creditEntryExample),
    ...errorResponses(404, 409),
  },
  handler: async (request, reply, deps) => {
    const input = { accountId: request.params.id, ...request.body };
    return respond(
      deps,
      request,
      reply,
      async (ctx, key) => {
        await requireAccount(deps, ctx.tenantId, input.accountId);
        return grantCredit(deps, ctx, input, key);
      },
      (entry: CreditEntryApi, ctx: RequestContext): Presented => ({
        status: 201,
        body: envelope(ctx, entry, ledgerActions(entry.accountId)),
      }),
    );
  },
});
