import { Type } from 'typebox';
import { Int4, StringEnum } from '../../core/schema.js';
import { STOCK_OVERRIDES } from './tables.js';

export const AVAILABILITIES = ['in_stock', 'out_of_stock', 'preorder', 'backorder'] as const;

export const ProductStockParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Product id.' }),
});

export const ProductStockSchema = Type.Object(
  {
    productId: Type.String({ format: 'uuid' }),
    tracked: Type.Boolean({ description: 'False: not counted, always sellable.' }),
    onHand: Type.Integer({ description: 'Units held.' }),
    reserved: Type.Integer({ description: 'Units of placed orders not yet fulfilled or released.' }),
    available: Type.Integer({ description: '`onHand - reserved`, never below 0.' }),
    lowStockThreshold: Type.Union([Type.Integer(), Type.Null()], {
      description: '`product.stock_low` fires when available falls to or below it.',
    }),
    availability: StringEnum(AVAILABILITIES, {
      description: 'The override (preorder, backorder) if set, else in_stock or out_of_stock by count.',
    }),
    updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Null: stock never set.',
    }),
  },
  { additionalProperties: false },
);

export const SetProductStockBody = Type.Object(
  {
    tracked: Type.Boolean({ description: 'Count this product: orders reserve it and it can run out.' }),
    onHand: Int4({ description: 'Units held now (what is reserved stays reserved).', default: 0 }),
    lowStockThreshold: Type.Optional(
      Type.Union([Int4({ maximum: 1_000_000 }), Type.Null()], {
        description: 'Null or omitted: no low-stock event.',
      }),
    ),
    availability: Type.Optional(
      Type.Union([StringEnum(STOCK_OVERRIDES), Type.Null()], {
        description: 'preorder or backorder: sold beyond onHand. Null or omitted: by count.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ tracked: true, onHand: 25, lowStockThreshold: 5 }],
  },
);
