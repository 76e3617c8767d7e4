import { defineCrud } from '../../unit-of-work/index.js';
import { ShippingOptionCreate, ShippingOptionSchema, ShippingOptionUpdate } from './schemas.js';
import { shippingOptionService } from './service.js';

const ABOUT =
  'A shipping option is a way to deliver an order: a name, a flat price in one currency, the countries it ' +
  'ships to (empty = every country) and a delivery estimate of minDays to maxDays. Inactive options stay ' +
  'stored but are not offered to buyers.';

/** Admin resource spec (routes and the seed loader share it). */
export const shippingOptionCrud = defineCrud({
  name: 'ShippingOption',
  plural: 'ShippingOptions',
  // The buyer-facing list below is `listShippingOptions`.
  listOperationId: 'listAllShippingOptions',
  path: '/admin/shipping-options',
  tag: 'Shipping admin',
  about: ABOUT,
  schema: ShippingOptionSchema,
  createBody: ShippingOptionCreate,
  updateBody: ShippingOptionUpdate,
  audit: {
    resourceType: 'shipping_option',
    create: 'shipping_option.create',
    update: 'shipping_option.update',
    delete: 'shipping_option.delete',
  },
  service: shippingOptionService,
});
