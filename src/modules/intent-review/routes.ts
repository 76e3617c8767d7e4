import { notFound } from '../../core/errors.js';
import { createdKey, listOfRows, NEWEST_FIRST, type PageRequest, pageRequest } from '../../core/paging.js';
import { requireCtx } from '../../http/auth.js';
import type { Deps } from '../../http/deps.js';
import { action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { ListEnvelope, listEnvelope } from '../../http/paging.js';
import type { TypedApp } from '../../http/types.js';
import { IntentListQuery, IntentParams, IntentSchema } from './schemas.js';
import { getIntent, listIntents, presentIntent } from './service.js';

const admin = { public: true, scope: 'admin' } as const;
const tags = ['Billing admin'];
const ABOUT =
  'An intent is recorded before an operation calls the billing system (provisioning a subscription, issuing an ' +
  'invoice, settling or reversing a payment...), with the idempotency key of each call; the operation closes it ' +
  'with its own commit. One left pending (a crash, a timeout) is finished or undone by the reconciler, so the ' +
  'billing system and this API agree.';

/** Admin: the intents of external effects and their outcomes (src/unit-of-work/intents.ts). */
export function registerIntentRoutes(app: TypedApp, deps: Deps) {
  app.get(
    '/api/v1/admin/intents',
    {
      config: admin,
      schema: {
        operationId: 'listIntents',
        summary: 'List billing intents',
        description:
          `${ABOUT} Newest first; filter by \`status\` (e.g. \`pending\`, \`attention\`) and \`operation\`. ` +
          'Always paged: `limit` defaults to 50; `meta.nextCursor` and the `next` action lead on.',
        tags,
        querystring: IntentListQuery,
        response: { 200: ListEnvelope(IntentSchema, 'The intents.') },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const query = { ...request.query, limit: request.query.limit ?? 50 };
      const where = { tenantId: ctx.tenantId, list: 'intents', keys: deps.keyRing };
      const page = pageRequest(where, query, NEWEST_FIRST) as PageRequest;
      const rows = await listIntents(deps.db, ctx.tenantId, request.query, page);
      return listEnvelope(ctx, request, listOfRows(rows, page, createdKey, where, presentIntent));
    },
  );

  app.get(
    '/api/v1/admin/intents/:id',
    {
      config: admin,
      schema: {
        operationId: 'getIntent',
        summary: 'Get a billing intent',
        description: `${ABOUT} 404 when not an intent of this tenant.`,
        tags,
        params: IntentParams,
        response: { 200: Envelope(IntentSchema, 'The intent.'), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const row = await getIntent(deps.db, ctx.tenantId, request.params.id);
      if (!row) throw notFound('Intent');
      return envelope(ctx, presentIntent(row), [action('list', 'GET', '/admin/intents', 'admin')]);
    },
  );
}
