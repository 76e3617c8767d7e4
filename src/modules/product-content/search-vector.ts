import { type SQL, sql } from 'drizzle-orm';
import type { LocaleFields } from './tables.js';

/**
 * The text-search configurations PostgreSQL (and PGlite) ship, by ISO 639-1 language: a locale's
 * content is stemmed in its language (`mugs` finds `mug`). Other languages are matched by words
 * as written (and by trigram similarity of the title).
 */
const LANGUAGE_CONFIGS: Record<string, string> = {
  ar: 'arabic',
  ca: 'catalan',
  da: 'danish',
  de: 'german',
  el: 'greek',
  en: 'english',
  es: 'spanish',
  eu: 'basque',
  fi: 'finnish',
  fr: 'french',
  ga: 'irish',
  hi: 'hindi',
  hu: 'hungarian',
  hy: 'armenian',
  id: 'indonesian',
  it: 'italian',
  lt: 'lithuanian',
  nb: 'norwegian',
  ne: 'nepali',
  nl: 'dutch',
  no: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sr: 'serbian',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
  yi: 'yiddish',
};

/** The text-search configuration of a BCP 47 tag's language; `simple` when PostgreSQL has none. */
export function languageConfig(locale: string): string {
  return LANGUAGE_CONFIGS[locale.split('-')[0]?.toLowerCase() ?? ''] ?? 'simple';
}

/**
 * What catalog search matches of one locale's content: the title (weight A), brand and category
 * (B), attributes and description (C), both as written (`simple`) and stemmed in the locale's
 * language, so a query matches in either form.
 */
export function searchVectorOf(locale: string, fields: LocaleFields): SQL {
  const weighted: [string, 'A' | 'B' | 'C'][] = [
    [fields.title, 'A'],
    [[fields.brand, fields.category].filter((v) => v !== null).join(' '), 'B'],
    [
      [...fields.attributes.map((a) => `${a.key} ${String(a.value)}`), fields.description ?? ''].join(' '),
      'C',
    ],
  ];
  const documentIn = (config: string) =>
    sql.join(
      weighted.map(([text, weight]) => sql`setweight(to_tsvector(${config}::regconfig, ${text}), ${weight})`),
      sql` || `,
    );
  const config = languageConfig(locale);
  return config === 'simple' ? documentIn('simple') : sql`${documentIn('simple')} || ${documentIn(config)}`;
}
