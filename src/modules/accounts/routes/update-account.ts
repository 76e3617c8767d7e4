import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { updateAccount } from '../operations.js';
import { AccountIdParams, AccountSchema, AccountUpdate } from '../schemas.js';
import { accountCreatedExample } from './create-account.js';
import { accountResponse, TAGS } from './shared.js';

export const accountUpdatedExample = {
  ...accountCreatedExample,
  data: { ...accountCreatedExample.data, phone: '+1 555 0100', website: 'https://initech.example' },
};

export const updateAccountRoute = defineRoute({
  method: 'PATCH',
  path: '/accounts/:id',
  operationId: 'updateAccount',
  summary: 'Update an account',
  description:
    'Changes the given fields (at least one) of a tenant-owned account; null clears an optional field. ' +
    '`externalId` cannot be changed (400). A billing-system account is not tenant-owned: 404. The audit ' +
    'entry records the changed fields before and after. Emits `account.updated`.',
  tags: TAGS,
  scope: 'commerce',
  params: AccountIdParams,
  body: AccountUpdate,
  responses: {
    200: Envelope(AccountSchema, 'The updated account.', accountUpdatedExample),
    ...errorResponses(404),
  },
  handler: async (request, reply, deps) => {
    const input = { accountId: request.params.id, changes: request.body };
    const adapter = await deps.billing.forTenant(deps.db, requireCtx(request).tenantId);
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => updateAccount(deps, ctx, input, key),
      accountResponse(200, adapter),
    );
  },
});
