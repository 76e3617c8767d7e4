import { Type } from 'typebox';
import { INT4_MAX, StringEnum } from '../../core/schema.js';
import { LOCALE_PATTERN } from '../tenants/index.js';
import { CONDITIONS, PRODUCT_CONTENT_STATUSES } from './tables.js';

export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 20_000;
export const MEDIA_MAX = 20;
export const ATTRIBUTES_MAX = 50;
export const LOCALES_MAX = 30;
const URL_MAX = 2048;

const Timestamp = Type.String({ format: 'date-time' });
const nullable = <T extends ReturnType<typeof Type.String>>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

export const Locale = Type.String({
  pattern: LOCALE_PATTERN,
  maxLength: 35,
  description: 'A BCP 47 tag: language, optional script and region, e.g. `en`, `fr-CA`.',
  examples: ['en'],
});

export const Slug = Type.String({
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  minLength: 1,
  maxLength: 100,
  examples: ['chef-knife-20cm'],
  description:
    'Lower-case letters and digits joined by single hyphens, unique per tenant, e.g. `chef-knife-20cm`.',
});

const Status = StringEnum(PRODUCT_CONTENT_STATUSES, {
  description:
    '`published`: offered to buyers and agents; `draft`: not offered, readable by admin keys only.',
});

const MediaItem = Type.Object(
  {
    url: Type.String({
      format: 'uri',
      pattern: '^https://[^\\s]+$',
      maxLength: URL_MAX,
      description: `An absolute https URL, at most ${URL_MAX} characters.`,
      examples: ['https://cdn.acme.example/knife.jpg'],
    }),
    type: Type.Union([Type.Literal('image'), Type.Literal('video')]),
    alt: Type.String({ maxLength: 300, description: 'Alt text, at most 300 characters.' }),
    position: Type.Integer({ minimum: 0, maximum: 999, description: 'Shown in ascending order.' }),
  },
  { additionalProperties: false },
);

const Attribute = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 100, description: 'Unique in the list.' }),
    type: Type.Union([Type.Literal('string'), Type.Literal('number'), Type.Literal('boolean')]),
    value: Type.Union(
      [Type.String({ maxLength: 1000 }), Type.Number({ minimum: -1e15, maximum: 1e15 }), Type.Boolean()],
      {
        description: 'Of `type`.',
      },
    ),
  },
  { additionalProperties: false },
);

const localeFields = {
  title: Type.String({
    minLength: 1,
    maxLength: TITLE_MAX,
    pattern: '\\S',
    description: `1-${TITLE_MAX} characters.`,
  }),
  description: nullable(
    Type.String({ maxLength: DESCRIPTION_MAX }),
    `Markdown, at most ${DESCRIPTION_MAX} characters; readers also get it as sanitised HTML.`,
  ),
  media: Type.Array(MediaItem, {
    maxItems: MEDIA_MAX,
    description: `Images and videos, at most ${MEDIA_MAX}.`,
  }),
  brand: nullable(Type.String({ minLength: 1, maxLength: 100 }), 'The brand, at most 100 characters.'),
  gtin: nullable(
    Type.String({ pattern: '^([0-9]{8}|[0-9]{12,14})$', examples: ['4006381333931'] }),
    'GTIN-8, -12 (UPC), -13 (EAN) or -14, digits only, with a valid check digit.',
  ),
  mpn: nullable(
    Type.String({ minLength: 1, maxLength: 70 }),
    'Manufacturer part number, at most 70 characters.',
  ),
  condition: Type.Union([StringEnum(CONDITIONS), Type.Null()], { description: 'Null: not stated.' }),
  category: nullable(
    Type.String({ minLength: 1, maxLength: 750, pattern: '^[^>]+( > [^>]+)*$' }),
    'A standard taxonomy path, levels joined by ` > `, e.g. `Home & Garden > Kitchen & Dining`.',
  ),
  attributes: Type.Array(Attribute, {
    maxItems: ATTRIBUTES_MAX,
    description: `Typed facts, at most ${ATTRIBUTES_MAX}.`,
  }),
};

const localeExample = {
  title: 'Chef’s knife 20 cm',
  description: 'Forged **steel**, full tang.\n\n- Dishwasher safe',
  media: [
    { url: 'https://cdn.acme.example/knife.jpg', type: 'image', alt: 'The knife on a board', position: 0 },
  ],
  brand: 'Acme',
  gtin: '4006381333931',
  mpn: 'CK-20',
  condition: 'new',
  category: 'Home & Garden > Kitchen & Dining > Kitchen Tools & Utensils',
  attributes: [
    { key: 'material', type: 'string', value: 'steel' },
    { key: 'blade_cm', type: 'number', value: 20 },
  ],
};

const EXAMPLE_ID = '0190b000-0000-7000-8000-000000000003';
const EXAMPLE_AT = '2026-04-20T09:30:00.000Z';

const LocaleEntry = Type.Object({ locale: Locale, ...localeFields });

export const ProductContentSchema = Type.Object(
  {
    productId: Type.String({ format: 'uuid' }),
    slug: Type.Union([Slug, Type.Null()]),
    status: Status,
    version: Type.Integer({ description: 'Grows by one with each change; 0 before the first.' }),
    locales: Type.Array(LocaleEntry, { description: 'Every locale’s content, by locale.' }),
    updatedAt: Type.Union([Timestamp, Type.Null()]),
  },
  {
    description: 'A product’s content in every locale (admin view, drafts included).',
    examples: [
      {
        productId: EXAMPLE_ID,
        slug: 'chef-knife-20cm',
        status: 'published',
        version: 3,
        locales: [{ locale: 'en', ...localeExample }],
        updatedAt: EXAMPLE_AT,
      },
    ],
  },
);

export const LocalizedContentSchema = Type.Object(
  {
    productId: Type.String({ format: 'uuid' }),
    slug: Type.Union([Slug, Type.Null()]),
    locale: Type.String({ description: 'The locale shown.' }),
    availableLocales: Type.Array(Type.String()),
    ...localeFields,
    descriptionHtml: Type.Union([Type.String(), Type.Null()], {
      description: 'The description rendered to HTML and sanitised (no scripts, styles or event handlers).',
    }),
    version: Type.Integer(),
    updatedAt: Timestamp,
  },
  {
    examples: [
      {
        productId: EXAMPLE_ID,
        slug: 'chef-knife-20cm',
        locale: 'en',
        availableLocales: ['de', 'en'],
        ...localeExample,
        descriptionHtml:
          '<p>Forged <strong>steel</strong>, full tang.</p>\n<ul>\n<li>Dishwasher safe</li>\n</ul>\n',
        version: 3,
        updatedAt: EXAMPLE_AT,
      },
    ],
  },
);

export const ContentVersionSchema = Type.Object({
  version: Type.Integer(),
  change: Type.String({ description: '`put`, `patch`, `settings` or `restore`.' }),
  actorKeyId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  createdAt: Timestamp,
  slug: Type.Union([Slug, Type.Null()]),
  status: Status,
  locales: Type.Array(LocaleEntry),
});

const ProductId = Type.String({ format: 'uuid', description: 'The product’s id.' });
export const ProductParams = Type.Object({ id: ProductId });
export const ProductLocaleParams = Type.Object({ id: ProductId, locale: Locale });
export const VersionParams = Type.Object({
  id: ProductId,
  version: Type.Integer({
    minimum: 1,
    maximum: INT4_MAX,
    description: 'A version from listProductContentVersions.',
  }),
});

export const ReadContentQuery = Type.Object(
  { locale: Type.Optional(Locale) },
  { additionalProperties: false },
);

export const ReadContentHeaders = Type.Object({
  'accept-language': Type.Optional(
    Type.String({ maxLength: 500, description: 'Used when `locale` is not given, e.g. `fr-CA,fr;q=0.8`.' }),
  ),
});

export const PutLocaleBody = Type.Object(
  {
    title: localeFields.title,
    description: Type.Optional(localeFields.description),
    media: Type.Optional(localeFields.media),
    brand: Type.Optional(localeFields.brand),
    gtin: Type.Optional(localeFields.gtin),
    mpn: Type.Optional(localeFields.mpn),
    condition: Type.Optional(localeFields.condition),
    category: Type.Optional(localeFields.category),
    attributes: Type.Optional(localeFields.attributes),
  },
  { additionalProperties: false, examples: [localeExample] },
);

export const PatchLocaleBody = Type.Object(
  {
    title: Type.Optional(localeFields.title),
    description: Type.Optional(localeFields.description),
    media: Type.Optional(localeFields.media),
    brand: Type.Optional(localeFields.brand),
    gtin: Type.Optional(localeFields.gtin),
    mpn: Type.Optional(localeFields.mpn),
    condition: Type.Optional(localeFields.condition),
    category: Type.Optional(localeFields.category),
    attributes: Type.Optional(localeFields.attributes),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ title: 'Chef’s knife, 20 cm', gtin: null }] },
);

export const PatchContentBody = Type.Object(
  {
    slug: Type.Optional(
      Type.Union([Slug, Type.Null()], { description: 'Unique per tenant; null removes it.' }),
    ),
    status: Type.Optional(Status),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ status: 'published' }, { slug: 'chef-knife-20cm', status: 'draft' }],
  },
);
