import type { Deps } from '../../deps.js';
import { registerAdminCrud } from '../../http/admin-crud.js';
import type { TypedApp } from '../../http/types.js';
import { productService } from './products.js';
import { ProductCreate, ProductSchema, ProductUpdate } from './schemas.js';

const TAG = 'Catalog admin';

/** Admin endpoints for the catalog: products, price rules, offers, promotions, plan links and rules. */
export function registerCatalogAdminRoutes(app: TypedApp, deps: Deps) {
  registerAdminCrud(app, deps, {
    name: 'Product',
    plural: 'Products',
    path: '/admin/products',
    tag: TAG,
    about:
      'A product is what customers buy: a one-time item, a subscription plan (with a billing interval, and a family ' +
      'and rank for plan changes) or an add-on; its price is the sum of its charges (modeled tiers, or passthrough ' +
      'charges quoted live by the billing system), and it grants entitlements.',
    schema: ProductSchema,
    createBody: ProductCreate,
    updateBody: ProductUpdate,
    audit: {
      resourceType: 'product',
      create: 'product.create',
      update: 'product.update',
      delete: 'product.delete',
    },
    service: productService,
  });
}
