import { Type } from 'typebox';
import type { AcpProduct } from './acp-product.js';

/** JSON Lines (one JSON value a line, each ending with `\n`), under its most widely known media type. */
export const FEED_MEDIA_TYPE = 'application/x-ndjson';

/** The file name the protocol gives a full feed snapshot (RFC "Product Feeds", 3.4). */
export const FEED_FILE_NAME = 'products.jsonl';

const PRODUCT = '0190b000-0000-7000-8000-000000000001';

/** One line of the feed, as the route answers it (valid for the protocol's schema: test/feeds/acp-feed.test.ts). */
export const acpProductExample: AcpProduct = {
  id: PRODUCT,
  title: 'Ceramic mug',
  description: { markdown: 'Stoneware, **350 ml**. Dishwasher safe.' },
  url: `http://localhost:3000/api/v1/products/${PRODUCT}/content?locale=en`,
  media: [{ type: 'image', url: 'https://cdn.acme.example/mug.jpg', alt_text: 'The mug, front' }],
  variants: [
    {
      id: PRODUCT,
      title: 'Ceramic mug',
      price: { amount: 1800, currency: 'USD' },
      availability: { available: true, status: 'limited_stock' },
      barcodes: [{ type: 'GTIN', value: '4006381333931' }],
      categories: [{ value: 'Home & Garden > Kitchen & Dining > Tableware > Drinkware > Mugs' }],
      condition: ['new'],
      seller: {
        name: 'Acme',
        links: [{ type: 'refund_policy', title: 'Return policy', url: 'https://acme.example/returns' }],
      },
    },
  ],
};

/**
 * The 200 answer of the feed export: not our envelope but a file of the protocol, streamed.
 * Declared per media type, so the OpenAPI document says what the body is.
 */
export const AcpFeedResponse = Type.Unsafe<string>({
  description:
    'The feed, streamed: one ACP `Product` (agentic-commerce-protocol 2026-04-17, `schema.feed.json`) per line.',
  content: {
    [FEED_MEDIA_TYPE]: {
      schema: Type.String({
        description:
          'JSON Lines: each line one `Product` with one `Variant` (the product; its `id` is what an ACP ' +
          'checkout’s `line_items[].id` takes), each line ending with a newline. Empty when nothing is offered.',
        examples: [`${JSON.stringify(acpProductExample)}\n`],
      }),
    },
  },
});
