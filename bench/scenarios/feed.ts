// The ACP product feed of a large catalog: a tenant with `products` products, each with published
// content (a title, a Markdown description, an image, GTIN, category) and one in ten with tracked
// stock, written by SQL (the API would take an hour), then GET /admin/feeds/acp read whole three
// times while the server's RSS is sampled every 20 ms: the feed streams a page at a time, so the
// server's memory should not grow with the catalog (target: < 50 MB for 100,000 products).
import pg from 'pg';
import type { BenchServer, Fixture } from '../harness.js';
import { withPeakRss } from './api.js';

export interface ExportRun {
  lines: number;
  bytes: number;
  ms: number;
  rssBeforeBytes: number;
  /** Peak RSS during the export over the RSS just before it. */
  growthBytes: number;
}

export interface FeedResult {
  /** Products seeded; the feed also lists the fixture's own three. */
  products: number;
  seedMs: number;
  /** The fresh server's first export. */
  first: ExportRun;
  /** Two more exports of the same catalog. */
  again: ExportRun[];
  /** The peak over all three over the RSS before the first. */
  totalGrowthBytes: number;
}

/** `count` published products with content (and stock for one in ten) for the fixture's tenant. */
async function seedCatalog(databaseUrl: string, f: Fixture, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('begin');
    await client.query(
      `insert into products (tenant_id, id, name, description, type, currency, active, requires_shipping,
         entitlements, charges, created_at, updated_at)
       select $1::uuid, gen_random_uuid(), 'Bench item ' || n, 'The plain description of bench item ' || n,
         'one_time', 'USD', true, true, '{}'::jsonb,
         jsonb_build_array(jsonb_build_object('id', gen_random_uuid(), 'name', 'Unit', 'kind', 'modeled',
           'chargeModel', 'per_unit', 'tiers', jsonb_build_array(jsonb_build_object('upTo', null,
           'unitPriceCents', 100 + n % 5000, 'flatPriceCents', 0)))),
         now(), now()
       from generate_series(1, $2::int) as n`,
      [f.tenantId, count],
    );
    const seeded = `from products p where p.tenant_id = $1::uuid and p.name like 'Bench item %'`;
    await client.query(
      `insert into product_content_meta (tenant_id, product_id, slug, status, version, created_at, updated_at)
       select p.tenant_id, p.id, null, 'published', 1, now(), now() ${seeded}`,
      [f.tenantId],
    );
    await client.query(
      `insert into product_content (tenant_id, product_id, locale, title, description, media, brand, gtin, mpn,
         condition, category, attributes, created_at, updated_at)
       select p.tenant_id, p.id, 'en', p.name,
         '**' || p.name || '**: stoneware, 350 ml. Dishwasher safe, made to last.',
         jsonb_build_array(jsonb_build_object('url', 'https://cdn.bench.example/' || p.id || '.jpg',
           'type', 'image', 'alt', 'Front view', 'position', 0)),
         'Bench', '4006381333931', 'BN-' || left(p.id::text, 8), 'new',
         'Home & Garden > Kitchen & Dining > Tableware > Drinkware > Mugs',
         '[{"key":"material","type":"string","value":"stoneware"}]'::jsonb, now(), now() ${seeded}`,
      [f.tenantId],
    );
    await client.query(
      `insert into product_stock (tenant_id, product_id, tracked, on_hand, reserved, low_threshold, created_at,
         updated_at)
       select p.tenant_id, p.id, true, (random() * 20)::int, 0, 3, now(), now() ${seeded} and random() < 0.1`,
      [f.tenantId],
    );
    await client.query('commit');
    await client.query('analyze products, product_content_meta, product_content, product_stock');
  } finally {
    await client.end();
  }
}

/** Reads the whole feed as it arrives, counting lines and bytes (nothing held). */
async function readFeed(
  server: BenchServer,
  f: Fixture,
): Promise<{ status: number; lines: number; bytes: number }> {
  const res = await fetch(`${server.appUrl}/api/v1/admin/feeds/acp`, {
    headers: { authorization: `Bearer ${f.key}` },
  });
  let lines = 0;
  let bytes = 0;
  let first = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    if (first.length < 4096) first += Buffer.from(chunk).toString('utf8');
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
  }
  // The first line is one whole ACP Product.
  const line = JSON.parse(first.slice(0, first.indexOf('\n'))) as { id?: string; variants?: unknown[] };
  if (!line.id || !Array.isArray(line.variants)) throw new Error('the feed’s first line is not a Product');
  return { status: res.status, lines, bytes };
}

/** Streams the fixture's feed once with the server's RSS sampled every 20 ms. */
async function measuredExport(server: BenchServer, f: Fixture, products: number): Promise<ExportRun> {
  const before = await server.rss();
  const started = performance.now();
  const [read, peak] = await withPeakRss(server, () => readFeed(server, f), 20);
  const ms = performance.now() - started;
  // The seeded products and the fixture's own three.
  if (read.status !== 200 || read.lines < products)
    throw new Error(`GET /admin/feeds/acp streamed ${read.lines} lines with ${read.status}`);
  return { lines: read.lines, bytes: read.bytes, ms, rssBeforeBytes: before, growthBytes: peak - before };
}

const setSeller = async (server: BenchServer, f: Fixture) => {
  const res = await fetch(`${server.appUrl}/api/v1/seller`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${f.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      displayName: 'Bench Store',
      termsOfUseUrl: 'https://bench.example/terms',
      privacyPolicyUrl: 'https://bench.example/privacy',
      returnPolicyUrl: 'https://bench.example/returns',
    }),
  });
  if (res.status !== 200) throw new Error(`PATCH /seller: ${res.status} ${await res.text()}`);
};

/**
 * Three exports of the same catalog of `products`, each with the server's RSS sampled. Memory
 * that grew with the catalog would grow again on every export; each is reported. What an export
 * holds is a page (the heap after a full collection is the same before and after one), but its
 * garbage (about 11 KB allocated per product) partly reaches the old generation, which V8 lets
 * grow up to a limit set from the process's live heap before collecting it: in this process the
 * growth of identical exports has ranged from +0 to +177 MB by where the collector stood.
 */
export async function feedExport(
  server: BenchServer,
  databaseUrl: string,
  products: number,
): Promise<FeedResult> {
  const f = server.fixtures[0] as Fixture;
  const seedStarted = performance.now();
  await seedCatalog(databaseUrl, f, products);
  const seedMs = performance.now() - seedStarted;
  await setSeller(server, f);
  const first = await measuredExport(server, f, products);
  const again = [await measuredExport(server, f, products), await measuredExport(server, f, products)];
  const peak = Math.max(...[first, ...again].map((r) => r.rssBeforeBytes + r.growthBytes));
  return {
    products,
    seedMs,
    first,
    again,
    totalGrowthBytes: peak - first.rssBeforeBytes,
  };
}
