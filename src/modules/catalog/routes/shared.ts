import type { UnitOfWork } from '../../../unit-of-work/index.js';
import type { ProductApi } from '../products.js';

/** What a product's update does beside the catalog (the composition root wires it). */
export type ProductUpdated = (
  u: UnitOfWork,
  change: { before: ProductApi; after: ProductApi },
) => Promise<void>;
