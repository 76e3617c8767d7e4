import { Readable } from 'node:stream';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { AcpFeedResponse, FEED_FILE_NAME, FEED_MEDIA_TYPE } from '../schemas.js';
import { openAcpFeed } from '../service.js';

export const exportAcpFeedRoute = defineRoute({
  method: 'GET',
  path: '/admin/feeds/acp',
  operationId: 'exportAcpFeed',
  summary: 'Export the published catalog as an ACP product feed (JSON Lines)',
  description:
    'The whole published catalog as the Agentic Commerce Protocol’s product feed, to hand to an agent ' +
    `platform: \`${FEED_MEDIA_TYPE}\`, one \`Product\` per line (the protocol's \`${FEED_FILE_NAME}\`), by ` +
    'product id, streamed (a large catalog is not held in memory). Active products whose content is ' +
    'published (or that have none) are listed; drafts and inactive products are not. Each has one variant, ' +
    'the product itself: its `id` is what an ACP checkout takes as `line_items[].id`. Title, Markdown ' +
    'description, media, GTIN, category and condition come from the product content in the tenant’s ' +
    '`defaultLocale` (else `en`, else the first locale), else the product’s own name and description; ' +
    '`price` is one unit after the offers open to every buyer (`list_price` before them), in minor units; ' +
    '`availability` follows the stock (`limited_stock` at or under its low-stock threshold); `seller` is the ' +
    'seller profile’s name and policy links. Prices and availability are informative: a checkout is ' +
    'authoritative. Not a snapshot of one instant; no paging. The same file as `commerce-agent feeds export`.',
  tags: ['Catalog admin'],
  scope: 'admin',
  responses: { 200: AcpFeedResponse },
  handler: async (request, reply, deps) => {
    const ctx = requireCtx(request);
    const lines = await openAcpFeed(deps.db, ctx.tenantId, {
      publicBaseUrl: deps.config.publicBaseUrl,
      now: deps.clock.now(),
    });
    return (
      reply
        .type(`${FEED_MEDIA_TYPE}; charset=utf-8`)
        .header('content-disposition', `attachment; filename="${FEED_FILE_NAME}"`)
        // Two pages ahead at most: a slow client holds back the reads, not the server's memory.
        .send(Readable.from(lines, { highWaterMark: 2 }))
    );
  },
});
