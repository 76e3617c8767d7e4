import { type TSchema, Type } from 'typebox';
import { Link, Message } from '../ucp/schemas/common.js';

// What the catalog answers (types/product.json, variant.json and what they name, at 2026-04-08),
// as TypeBox for our routes: every field we send is declared (the schema also serialises).

/** A schema with its own description where it is used. */
const described = <T extends TSchema>(schema: T, description: string): T => ({ ...schema, description });

const Price = Type.Object(
  {
    amount: Type.Integer({ minimum: 0, description: 'Minor units (cents).' }),
    currency: Type.String({ description: 'ISO 4217, e.g. `USD`.' }),
  },
  { description: 'A price (UCP price).' },
);

const PriceRange = Type.Object({ min: Price, max: Price });

const Description = Type.Object(
  {
    plain: Type.Optional(Type.String()),
    markdown: Type.Optional(Type.String()),
  },
  { description: 'Markdown when the product has content, else plain text (empty when it has none).' },
);

const Media = Type.Object({
  type: Type.String({ description: '`image` or `video`.' }),
  url: Type.String({ format: 'uri' }),
  alt_text: Type.Optional(Type.String()),
});

const Category = Type.Object({
  value: Type.String({
    description: 'The merchant’s taxonomy path, e.g. `Home & Garden > Kitchen & Dining`.',
  }),
  taxonomy: Type.String({ description: '`merchant`.' }),
});

const Seller = Type.Object(
  {
    name: Type.String({ description: 'The seller’s display name.' }),
    links: Type.Array(Link, { description: 'Terms, privacy, refund policy and support pages, those set.' }),
  },
  { description: 'Who sells it.' },
);

const Correlation = Type.Object({
  id: Type.String({ description: 'The request identifier, as sent.' }),
  match: Type.String({
    description: '`exact` (a product id: the variant’s own id) or `featured` (a handle).',
  }),
});

const variantFields = {
  id: Type.String({
    description:
      'The variant id, which is the product id (our products have one variant): `line_items[].item.id` of a checkout.',
  }),
  title: Type.String(),
  description: Description,
  price: described(Price, 'One unit, after price rules and offers (no customer context).'),
  list_price: Type.Optional(described(Price, 'One unit at list price, when above `price`.')),
  availability: Type.Object({
    available: Type.Boolean({ description: 'False only when out of stock.' }),
    status: Type.String({ description: '`in_stock`, `out_of_stock`, `preorder` or `backorder`.' }),
  }),
  barcodes: Type.Optional(Type.Array(Type.Object({ type: Type.String(), value: Type.String() }))),
  seller: Seller,
};

const Variant = Type.Object(variantFields, { description: 'The product’s one purchasable variant.' });

const LookupVariant = Type.Object(
  { ...variantFields, inputs: Type.Array(Correlation, { minItems: 1 }) },
  { description: 'The variant, with the request identifiers that resolved to it.' },
);

const Metadata = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      '`product_type` (`one_time`, `subscription`, `add_on`), and when known `language` (of the content), ' +
      '`brand`, `condition`, `mpn`, `attributes` (key to value).',
  },
);

const productFields = {
  id: Type.String({ description: 'The product id.' }),
  handle: Type.Optional(
    Type.String({ description: 'The product’s slug; lookup takes it as an identifier.' }),
  ),
  title: Type.String(),
  description: Description,
  categories: Type.Optional(Type.Array(Category)),
  price_range: PriceRange,
  list_price_range: Type.Optional(PriceRange),
  media: Type.Optional(Type.Array(Media, { description: 'In display order; the first is featured.' })),
  metadata: Metadata,
};

export const Product = Type.Object(
  { ...productFields, variants: Type.Array(Variant, { minItems: 1, maxItems: 1 }) },
  { description: 'A product (UCP product) with its one variant.' },
);

const LookupProduct = Type.Object(
  { ...productFields, variants: Type.Array(LookupVariant, { minItems: 1, maxItems: 1 }) },
  { description: 'A product found by identifier.' },
);

/** The `ucp` block of a catalog answer: the catalog capability the operation belongs to. */
const UcpCatalogMeta = Type.Object({
  version: Type.String({ description: 'The protocol version the request was processed with.' }),
  status: Type.Literal('success'),
  capabilities: Type.Record(Type.String(), Type.Array(Type.Object({ version: Type.String() }))),
});

const Messages = Type.Optional(
  Type.Array(Message, {
    description:
      '`warning` `delayed_fulfillment` for a product on backorder or preorder; `info` `not_found` (lookup: an ' +
      'identifier that names nothing, in `content`), `price_filter_not_applied`, `filter_ignored`.',
  }),
);

export const SearchResponse = Type.Object({
  ucp: UcpCatalogMeta,
  products: Type.Array(Product, { description: 'Best match first.' }),
  pagination: Type.Object({
    cursor: Type.Optional(
      Type.String({ description: 'Send it back, with the same query and filters, for the next page.' }),
    ),
    has_next_page: Type.Boolean(),
    total_count: Type.Integer({ minimum: 0, description: 'Matches in all (pages reach the first 1,000).' }),
  }),
  messages: Messages,
});

export const LookupResponse = Type.Object({
  ucp: UcpCatalogMeta,
  products: Type.Array(LookupProduct, { description: 'The products found, each once, in request order.' }),
  messages: Messages,
});

export const GetProductResponse = Type.Object({
  ucp: UcpCatalogMeta,
  product: described(Product, 'The product in full (it has no options to select).'),
  messages: Messages,
});
