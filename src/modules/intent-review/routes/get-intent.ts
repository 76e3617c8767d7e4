import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope, next } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { IntentParams, IntentSchema } from '../schemas.js';
import { getIntent, presentIntent } from '../service.js';
import { ABOUT, tags } from './shared.js';

export const getIntentRoute = defineRoute({
  method: 'GET',
  path: '/admin/intents/:id',
  operationId: 'getIntent',
  summary: 'Get a billing intent',
  description: `${ABOUT} 404 when not an intent of this tenant.`,
  tags,
  scope: 'admin',
  params: IntentParams,
  responses: { 200: Envelope(IntentSchema, 'The intent.'), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const row = await getIntent(deps.db, ctx.tenantId, request.params.id);
    if (!row) throw notFound('Intent');
    return envelope(ctx, presentIntent(row), [next('list', 'listIntents')]);
  },
});
