import { Type } from 'typebox';
import { MAX_TOTAL_CENTS } from '../../core/money.js';
import { StringEnum } from '../../core/schema.js';
import { ProductSchema } from '../catalog/index.js';
import { AVAILABILITIES } from '../stock/index.js';
import { LOCALE_PATTERN } from '../tenants/index.js';

export const SEARCH_LIMIT_DEFAULT = 20;
export const SEARCH_LIMIT_MAX = 50;
/** How deep search pages go: relevance past the first thousands is noise, and deep offsets cost. */
export const SEARCH_DEPTH_MAX = 1_000;

const Cents = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_TOTAL_CENTS, description });
const Availability = StringEnum(AVAILABILITIES, { description: 'Stock state.' });

const AvailableUnits = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
  description: 'Units available now; null when stock is not tracked.',
});

export const CatalogSearchQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'Words, as in a web search (`"a phrase"`, `or`, `-word`); misspelled title words still match. ' +
          'Absent: every product.',
        examples: ['chef knife'],
      }),
    ),
    category: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'A taxonomy path or its prefix: `Home & Garden` also finds `Home & Garden > Kitchen`.',
      }),
    ),
    brand: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Exact, any case.' })),
    priceMinCents: Type.Optional(Cents('Minimum list price of one unit.')),
    priceMaxCents: Type.Optional(Cents('Maximum list price of one unit.')),
    currency: Type.Optional(
      Type.String({ pattern: '^[A-Z]{3}$', description: 'Only products priced in it.' }),
    ),
    availability: Type.Optional(Availability),
    locale: Type.Optional(
      Type.String({
        pattern: LOCALE_PATTERN,
        maxLength: 35,
        description: 'Results’ language (else Accept-Language, else the default).',
      }),
    ),
    cartId: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'Your cart: `addCartItem` actions.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: SEARCH_LIMIT_MAX,
        description: `Default ${SEARCH_LIMIT_DEFAULT}.`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'From `meta.nextCursor`.' }),
    ),
  },
  { additionalProperties: false },
);

export const SearchHeaders = Type.Object({
  'accept-language': Type.Optional(Type.String({ maxLength: 500 })),
});

const Image = Type.Object({ url: Type.String(), alt: Type.String() });

export const CatalogResultSchema = Type.Object({
  productId: Type.String({ format: 'uuid' }),
  title: Type.String(),
  slug: Type.Union([Type.String(), Type.Null()]),
  locale: Type.Union([Type.String(), Type.Null()], { description: 'Null: the product has no content.' }),
  excerpt: Type.Union([Type.String(), Type.Null()], { description: 'The description’s start, as Markdown.' }),
  brand: Type.Union([Type.String(), Type.Null()]),
  category: Type.Union([Type.String(), Type.Null()]),
  condition: Type.Union([Type.String(), Type.Null()]),
  image: Type.Union([Image, Type.Null()], { description: 'The first image.' }),
  type: StringEnum(['one_time', 'subscription', 'add_on']),
  currency: Type.String(),
  listPriceCents: Cents('One unit at list price.'),
  priceCents: Cents('One unit after price rules and offers (no customer context).'),
  availability: Availability,
  available: AvailableUnits,
  score: Type.Number({ description: 'Relevance: higher is better; 0 without `q`.' }),
});

/** A product of `GET /catalog`: the catalog's product with its stock as buyers see it. */
export const CatalogProductSchema = Type.Object({
  ...ProductSchema.properties,
  availability: Availability,
  available: AvailableUnits,
});

const FacetValues = Type.Array(Type.Object({ value: Type.String(), count: Type.Integer({ minimum: 1 }) }), {
  description: 'The 20 most frequent values among all matches.',
});

export const CatalogFacetsSchema = Type.Object({
  brand: FacetValues,
  category: FacetValues,
  availability: FacetValues,
});

export const SearchMeta = Type.Object({
  limit: Type.Integer(),
  total: Type.Integer({ description: 'Matches in all (pages reach the first 1,000).' }),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
