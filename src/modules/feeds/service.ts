import { notFound } from '../../core/errors.js';
import type { Queryable } from '../../db/client.js';
import { readTogether } from '../../db/read-together.js';
import { activeProductIdsAfter, pricingDataRead } from '../catalog/index.js';
import { priceLinesWith } from '../pricing/index.js';
import { contentsOfProductsRead } from '../product-content/index.js';
import { getSellerProfile } from '../seller/index.js';
import { stockLevelsRead } from '../stock/index.js';
import { getTenant } from '../tenants/index.js';
import { acpProduct, acpSeller, type FeedContext } from './acp-product.js';

/**
 * Products read per statement: the memory an export holds, whatever the catalog's size. Small, so
 * that less of an export's garbage outlives a young collection: over 100,000 products, 500 a page
 * grew a process's RSS by 40-80 MB, 100 a page by 3-8 MB, for about a tenth more time
 * (docs/decisions.md, "ACP product feed").
 */
export const FEED_PAGE_SIZE = 100;

export interface FeedOptions {
  /** Our public base URL: the products' links point under it. */
  publicBaseUrl: string;
  /** When the prices are taken (offers running then). */
  now: Date;
  pageSize?: number;
}

/** Lines are sent in chunks of about this many characters (each a young, small string). */
const CHUNK_CHARS = 32 * 1024;

interface Page {
  /** The page's lines, each ending with a newline, grouped in chunks (none when nothing is offered). */
  chunks: string[];
  /** The last product id read (the next page starts after it); null: nothing was left. */
  last: string | null;
  /** How many products were read (fewer than the page size: the last page). */
  read: number;
}

/**
 * One page of the feed: the next `size` active products by id, then their prices, content and
 * stock in one statement; drafts are left out (a product without content is published).
 */
async function readPage(
  db: Queryable,
  tenantId: string,
  after: string | null,
  size: number,
  feed: FeedContext,
  now: Date,
): Promise<Page> {
  const ids = await activeProductIdsAfter(db, tenantId, after, size);
  if (ids.length === 0) return { chunks: [], last: null, read: 0 };
  const [pricing, contents, stock] = await readTogether(db, [
    pricingDataRead(tenantId, ids),
    contentsOfProductsRead(tenantId, ids),
    stockLevelsRead(tenantId, ids),
  ]);
  const priced = priceLinesWith(
    pricing,
    ids.map((productId) => ({ productId, quantity: 1 })),
    {},
    now,
  );
  const stockOf = new Map(stock.map((s) => [s.productId, s]));
  const chunks: string[] = [];
  let text = '';
  for (const line of priced) {
    // Gone or deactivated since its id was read, or a draft: not offered.
    if (!line?.product.active) continue;
    const content = contents.get(line.product.id);
    if (content?.document.status === 'draft') continue;
    const item = {
      product: line.product,
      price: line.resolution,
      content,
      stock: stockOf.get(line.product.id),
    };
    text += `${JSON.stringify(acpProduct(item, feed))}\n`;
    if (text.length >= CHUNK_CHARS) {
      chunks.push(text);
      text = '';
    }
  }
  if (text) chunks.push(text);
  return { chunks, last: ids[ids.length - 1] ?? null, read: ids.length };
}

/**
 * The tenant's published catalog as an ACP product feed: one `Product` a line (JSON Lines), by
 * product id, read a page at a time as the consumer takes them, so an export holds one page in
 * memory however large the catalog. The first page is read before this resolves: a database that
 * cannot answer fails the request (or the command) before anything is written. Not a snapshot:
 * a product changed during a long export is written as it was when its page was read.
 */
export async function openAcpFeed(
  db: Queryable,
  tenantId: string,
  options: FeedOptions,
): Promise<AsyncIterable<string>> {
  const tenant = await getTenant(db, tenantId);
  if (!tenant) throw notFound('Tenant');
  const feed: FeedContext = {
    defaultLocale: tenant.defaultLocale,
    base: options.publicBaseUrl.replace(/\/+$/, ''),
    seller: acpSeller(await getSellerProfile(db, tenantId)),
  };
  const size = options.pageSize ?? FEED_PAGE_SIZE;
  const first = await readPage(db, tenantId, null, size, feed, options.now);
  return (async function* () {
    let page = first;
    for (;;) {
      yield* page.chunks;
      if (page.read < size || page.last === null) return;
      page = await readPage(db, tenantId, page.last, size, feed, options.now);
    }
  })();
}
