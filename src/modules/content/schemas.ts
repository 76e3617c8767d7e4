import { Type } from 'typebox';
import { PageQueryFields } from '../../core/paging.js';
import { StringEnum } from '../../core/schema.js';
import { CONTENT_STATUSES } from './tables.js';

export const CONTENT_KEY_MAX = 64;
export const CONTENT_TITLE_MAX = 200;
export const CONTENT_BODY_MAX = 100_000;
/** The locale served when neither `locale` nor Accept-Language finds one (tenants have no default yet). */
export const DEFAULT_LOCALE = 'en';

/** A slug: lower-case letters and digits in words joined by single hyphens. */
export const CONTENT_KEY_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';
/** BCP 47, language[-Script][-REGION]: `en`, `pt-BR`, `zh-Hant-TW`, `es-419`. */
export const LOCALE_PATTERN = '^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$';

export const ContentKey = Type.String({
  minLength: 1,
  maxLength: CONTENT_KEY_MAX,
  pattern: CONTENT_KEY_PATTERN,
  description: 'A slug: a-z, 0-9, single hyphens (`return-policy`).',
});

const LOCALE_TEXT = 'A BCP 47 tag, language[-Script][-REGION]: `en`, `pt-BR`, `zh-Hant-TW`.';
const localeOf = (description: string) =>
  Type.String({ minLength: 2, maxLength: 35, pattern: LOCALE_PATTERN, description });
export const Locale = localeOf(LOCALE_TEXT);
const DefaultedLocale = localeOf(`${LOCALE_TEXT} Default \`${DEFAULT_LOCALE}\`.`);

const statusOf = (description: string) => StringEnum(CONTENT_STATUSES, { description });
const Status = statusOf('`draft` (not served publicly) or `published`.');
const Title = Type.String({
  minLength: 1,
  maxLength: CONTENT_TITLE_MAX,
  pattern: '\\S',
  description: 'The title.',
});
const Body = Type.String({
  maxLength: CONTENT_BODY_MAX,
  description: 'Markdown, stored and served as written.',
});

export const contentExample = {
  id: '01960f7e-4a4b-7c3d-9e2f-1a2b3c4d5e6f',
  key: 'terms',
  locale: 'en',
  title: 'Terms of use',
  body: '# Terms of use\n\nBy ordering you agree to...',
  status: 'published' as const,
  version: 3,
  publishedAt: '2026-04-20T09:30:00.000Z',
  createdAt: '2026-04-01T08:00:00.000Z',
  updatedAt: '2026-04-20T09:30:00.000Z',
};

export const ContentEntrySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    key: ContentKey,
    locale: Locale,
    title: Type.String(),
    body: Type.String({ description: 'Markdown.' }),
    status: Status,
    version: Type.Integer({ minimum: 1, description: 'The current version; every write adds one.' }),
    publishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'A content page in one locale, at its current version.', examples: [contentExample] },
);

export const contentVersionExample = {
  version: 2,
  title: 'Terms of use',
  body: '# Terms of use\n\nBy ordering...',
  status: 'draft' as const,
  createdAt: '2026-04-10T08:00:00.000Z',
};

export const ContentVersionSchema = Type.Object(
  {
    version: Type.Integer({ minimum: 1 }),
    title: Type.String(),
    body: Type.String({ description: 'Markdown.' }),
    status: Status,
    createdAt: Type.String({ format: 'date-time', description: 'When this version was written.' }),
  },
  { description: 'One version of an entry, as written.', examples: [contentVersionExample] },
);

export const publicContentExample = {
  key: 'terms',
  locale: 'en',
  title: 'Terms of use',
  body: '# Terms of use\n\nBy ordering you agree to...',
  version: 3,
  publishedAt: '2026-04-20T09:30:00.000Z',
};

export const PublicContentSchema = Type.Object(
  {
    key: ContentKey,
    locale: Type.String({ description: 'The locale served (also in Content-Language).' }),
    title: Type.String(),
    body: Type.String({ description: 'Markdown.' }),
    version: Type.Integer({ minimum: 1 }),
    publishedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'A published content page.', examples: [publicContentExample] },
);

export const ContentKeyParams = Type.Object({ key: ContentKey });
export const ContentVersionParams = Type.Object({
  key: ContentKey,
  version: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The version to restore.' }),
});
export const PublicContentParams = Type.Object({
  tenantId: Type.String({ format: 'uuid', description: 'The seller (tenant) id.' }),
  key: ContentKey,
});

/** `?locale=` of the admin routes on one entry: which locale of the key (default `en`). */
export const EntryLocaleQuery = Type.Object(
  { locale: Type.Optional(DefaultedLocale) },
  { additionalProperties: false },
);

export const VersionListQuery = Type.Object(
  { locale: Type.Optional(DefaultedLocale), ...PageQueryFields },
  { additionalProperties: false },
);

export const PublicContentQuery = Type.Object(
  {
    locale: Type.Optional(
      localeOf(
        `The wanted locale; else Accept-Language, the tenant default, \`${DEFAULT_LOCALE}\`, any published one.`,
      ),
    ),
  },
  { additionalProperties: false },
);

export const ContentListQuery = Type.Object(
  {
    status: Type.Optional(Status),
    locale: Type.Optional(Locale),
    key: Type.Optional(ContentKey),
    ...PageQueryFields,
  },
  { additionalProperties: false },
);

export const PutContentBody = Type.Object(
  {
    locale: Type.Optional(DefaultedLocale),
    title: Title,
    body: Body,
    status: Type.Optional(statusOf('`draft` (not served publicly) or `published`; default `draft`.')),
  },
  {
    additionalProperties: false,
    examples: [{ locale: 'en', title: 'Terms of use', body: '# Terms of use\n\n...', status: 'published' }],
  },
);

export const PatchContentBody = Type.Object(
  { title: Type.Optional(Title), body: Type.Optional(Body), status: Type.Optional(Status) },
  { additionalProperties: false, minProperties: 1, examples: [{ status: 'published' }, { title: 'Terms' }] },
);
