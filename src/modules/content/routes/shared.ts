import type { RequestContext } from '../../../http/context.js';
import { envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import { DEFAULT_LOCALE } from '../schemas.js';
import { type ContentEntryRow, presentEntry } from '../service.js';

export const TAGS = ['Content'];

/** The locale an admin route on one entry means: `?locale=`, else the default. */
export const entryLocale = (query: { locale?: string | undefined }) => query.locale ?? DEFAULT_LOCALE;

export const entryActions = (row: { key: string; locale: string }) => {
  const ref = { key: row.key, locale: row.locale };
  return [
    next('self', 'getContentEntry', ref),
    next('update', 'updateContentEntry', ref),
    next('versions', 'listContentVersions', ref),
    next('list', 'listContentEntries'),
  ];
};

export const entryResponse =
  (status: number) =>
  (row: ContentEntryRow, ctx: RequestContext): Presented => ({
    status,
    body: envelope(ctx, presentEntry(row), entryActions(row)),
  });

/** What an entry is, said once for the admin routes. */
export const CONTENT_PURPOSE =
  'Content pages (terms, privacy, returns, shipping, FAQ): one entry per key and locale, Markdown body, `draft` or `published`, every write a new version.';
