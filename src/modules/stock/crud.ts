import { inArray } from 'drizzle-orm';
import { Type } from 'typebox';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { CrudService } from '../../unit-of-work/index.js';
import { type ProductApi, ProductSchema, productCrud } from '../catalog/index.js';
import { ProductStockSchema } from './schemas.js';
import { type ProductStockApi, presentStock, type StockRow } from './service.js';
import { productStock } from './tables.js';

// The catalog's admin product resource with each product's stock beside it. The catalog sits below
// this module, so the composition root registers the catalog's admin routes with this spec.

export const StockedProductSchema = Type.Object({
  ...ProductSchema.properties,
  stock: { ...ProductStockSchema, description: 'Its stock, as GET /admin/products/{id}/stock reads it.' },
});

export type StockedProductApi = ProductApi & { stock: ProductStockApi };

/** The stock of `productIds` as shown (a product never set reads as untracked), in one read. */
export async function stockOfProducts(
  q: Queryable,
  tenantId: string,
  productIds: readonly string[],
): Promise<Map<string, ProductStockApi>> {
  const rows: StockRow[] =
    productIds.length === 0
      ? []
      : await q
          .select()
          .from(productStock)
          .where(tenantWhere(productStock, tenantId, inArray(productStock.productId, [...productIds])));
  const byId = new Map(rows.map((r) => [r.productId, r]));
  return new Map(productIds.map((id) => [id, presentStock(id, byId.get(id) ?? null)]));
}

async function withStock(
  q: Queryable,
  tenantId: string,
  products: ProductApi[],
): Promise<StockedProductApi[]> {
  const stock = await stockOfProducts(
    q,
    tenantId,
    products.map((p) => p.id),
  );
  return products.map((p) => ({ ...p, stock: stock.get(p.id) ?? presentStock(p.id, null) }));
}

const one = async (q: Queryable, tenantId: string, product: ProductApi | undefined) =>
  product && (await withStock(q, tenantId, [product]))[0];

type ProductService = typeof productCrud.service;
type Create = Parameters<ProductService['create']>[2];
type Update = Parameters<ProductService['update']>[3];

const base = productCrud.service;

const stockedProductService: CrudService<StockedProductApi, Create, Update> = {
  list: async (db, tenantId) => withStock(db, tenantId, await base.list(db, tenantId)),
  get: async (db, tenantId, id) => one(db, tenantId, await base.get(db, tenantId, id)),
  create: async (tx, tenantId, input, now) =>
    (await withStock(tx, tenantId, [await base.create(tx, tenantId, input, now)]))[0] as StockedProductApi,
  async update(tx, tenantId, id, patch, now) {
    const change = await base.update(tx, tenantId, id, patch, now);
    if (!change) return undefined;
    const [before, after] = await withStock(tx, tenantId, [change.before, change.after]);
    return { before: before as StockedProductApi, after: after as StockedProductApi };
  },
  remove: async (tx, tenantId, id) => one(tx, tenantId, await base.remove(tx, tenantId, id)),
};

/** The admin product resource, each product shown with its `stock`. */
export const stockedProductCrud = {
  ...productCrud,
  about: `${productCrud.about} Each product shows its \`stock\` (PUT /admin/products/{id}/stock sets it).`,
  schema: StockedProductSchema,
  service: stockedProductService,
};
