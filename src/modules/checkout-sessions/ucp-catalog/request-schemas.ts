import { Type } from 'typebox';
import { MAX_TOTAL_CENTS } from '../../../core/money.js';
import { INT4_MAX } from '../../../core/schema.js';
import { Text } from '../ucp/schemas/common.js';

// The catalog's requests (catalog_search.json, catalog_lookup.json and the types they name, at
// 2026-04-08) as TypeBox: open objects as UCP's are (an unknown field is accepted and ignored),
// every string, array and integer bounded.

const open = { additionalProperties: true } as const;

/** How many identifiers one lookup takes (UCP: at least 10 SHOULD be accepted); more is 400 request_too_large. */
export const LOOKUP_IDS_MAX = 50;
/** The page size of a search when none is asked for (catalog/rest.md, "Conformance": 10). */
export const SEARCH_PAGE_DEFAULT = 10;
/** The largest page we answer: a larger `limit` is clamped to it, silently, as UCP allows. */
export const SEARCH_PAGE_MAX = 50;

const Identifier = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

const Context = Type.Object(
  {
    address_country: Type.Optional(Text('Country (ISO 3166-1 alpha-2). Accepted, not used.', 64)),
    address_region: Type.Optional(Text('Region. Accepted, not used.', 200)),
    postal_code: Type.Optional(Text('Postal code. Accepted, not used.', 64)),
    intent: Type.Optional(Text('What the buyer is after. Accepted, not used for ranking.', 2000)),
    language: Type.Optional(
      Text('BCP 47 tag of the content wanted (`fr`, `fr-CA`); else Accept-Language, else the default.', 35),
    ),
    currency: Type.Optional(
      Text('ISO 4217 code the price filter is in; prices are answered in each product’s currency.', 16),
    ),
    eligibility: Type.Optional(
      Type.Array(Text('A reverse-domain benefit claim. Accepted, none recognised.', 200), { maxItems: 50 }),
    ),
  },
  { ...open, description: 'Buyer context: hints, never authoritative (catalog/index.md, "Context").' },
);

const Signals = Type.Object({}, { ...open, description: 'Platform signals. Accepted, not used.' });
const Attribution = Type.Object({}, { ...open, description: 'Referral context. Accepted, not kept.' });

const Minor = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_TOTAL_CENTS, description });

export const PriceFilter = Type.Object(
  {
    min: Type.Optional(Minor('Lowest list price of one unit, minor units.')),
    max: Type.Optional(Minor('Highest list price of one unit, minor units.')),
  },
  {
    ...open,
    description:
      'In `context.currency`; without it, in each product’s own currency. A product priced in another currency ' +
      'than `context.currency` is not filtered by price (we do not convert): an info message says so.',
  },
);

export const Filters = Type.Object(
  {
    categories: Type.Optional(
      Type.Array(Text('A category `value` from an answer, or a path prefix of it.', 500), {
        maxItems: 20,
        description: 'Any of these (OR): `Home & Garden` also finds `Home & Garden > Kitchen`.',
      }),
    ),
    price: Type.Optional(PriceFilter),
  },
  {
    ...open,
    description: 'All filters given must hold (AND). Other filters are ignored, with an info message.',
  },
);

const Pagination = Type.Object(
  {
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: '`pagination.cursor` of the previous answer, sent with the same query and filters.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: INT4_MAX,
        description: `Page size: default ${SEARCH_PAGE_DEFAULT}, more than ${SEARCH_PAGE_MAX} answers ${SEARCH_PAGE_MAX}.`,
      }),
    ),
  },
  open,
);

const Shared = {
  context: Type.Optional(Context),
  signals: Type.Optional(Signals),
  attribution: Type.Optional(Attribution),
};

export const SearchRequest = Type.Object(
  {
    query: Type.Optional(
      Text(
        'Words, as in a web search (`"a phrase"`, `or`, `-word`); misspelled title words still match.',
        200,
      ),
    ),
    ...Shared,
    filters: Type.Optional(Filters),
    pagination: Type.Optional(Pagination),
  },
  {
    ...open,
    description: 'A search (search_request): `query`, or a filter to browse by, or both.',
    examples: [
      {
        query: 'chef knife',
        context: { address_country: 'US', language: 'en', currency: 'USD' },
        filters: { categories: ['Home & Garden > Kitchen & Dining'], price: { max: 10000 } },
        pagination: { limit: 10 },
      },
    ],
  },
);

export const LookupRequest = Type.Object(
  {
    ids: Type.Array(Identifier('A product id (also its only variant’s id) or a product handle (slug).'), {
      minItems: 1,
      maxItems: LOOKUP_IDS_MAX,
      description: `1 to ${LOOKUP_IDS_MAX} identifiers; duplicates count once.`,
    }),
    filters: Type.Optional(Filters),
    ...Shared,
  },
  {
    ...open,
    description: 'A batch lookup (lookup_request).',
    examples: [{ ids: ['0190b000-0000-7000-8000-000000000003', 'chef-knife-20cm'] }],
  },
);

const SelectedOption = Type.Object(
  {
    name: Text('Option name.', 200),
    id: Type.Optional(Text('Option value id.', 200)),
    label: Text('Value.', 200),
  },
  open,
);

export const GetProductRequest = Type.Object(
  {
    id: Identifier('A product id (also its only variant’s id) or a product handle (slug).'),
    selected: Type.Optional(
      Type.Array(SelectedOption, {
        maxItems: 50,
        description: 'Option selections. Our products have no options: accepted, not used.',
      }),
    ),
    preferences: Type.Optional(
      Type.Array(Text('An option name.', 200), { maxItems: 50, description: 'Accepted, not used.' }),
    ),
    filters: Type.Optional(Filters),
    ...Shared,
  },
  {
    ...open,
    description: 'One product’s detail (get_product_request).',
    examples: [{ id: '0190b000-0000-7000-8000-000000000003', context: { language: 'en' } }],
  },
);
