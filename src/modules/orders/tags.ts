import { tagOperations } from '../../unit-of-work/tags.js';
import { type OrderRow, presentOrder } from './service.js';
import { orders } from './tables.js';

/** PUT/DELETE /orders/{id}/tags/{key}: audit `order.tag_set`/`order.tag_delete`, event `order.updated`. */
export const orderTags = tagOperations<OrderRow>({
  table: orders,
  label: 'Order',
  resourceType: 'order',
  audit: { set: 'order.tag_set', delete: 'order.tag_delete' },
  updated: { event: 'order.updated', present: presentOrder },
});
