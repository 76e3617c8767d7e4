import { catalogCrudSpecs } from '../modules/catalog/index.js';
import { policyCrud } from '../modules/policies/index.js';
import { shippingOptionCrud } from '../modules/shipping/index.js';
import type { AnyCrudSpec } from '../unit-of-work/index.js';

/** Everything a seed file can hold, in load order (products before what refers to them). */
export const SEED_SPECS: AnyCrudSpec[] = [...catalogCrudSpecs, policyCrud, shippingOptionCrud];
