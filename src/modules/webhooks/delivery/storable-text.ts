/** How much of a receiver's reply (or an error) an attempt record keeps, in UTF-16 units. */
export const ATTEMPT_TEXT_LIMIT = 1_024;

/** A high surrogate: the first half of a character outside the Basic Multilingual Plane. */
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
/** Half a surrogate pair with its other half missing: not a character, refused by PostgreSQL. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text any PostgreSQL `text` column (and `jsonb`, which carries attempt results in batches)
 * accepts: at most `maxChars` UTF-16 units, cut on a character boundary (never between the two
 * halves of an emoji), with U+0000 and lone surrogates replaced by U+FFFD. Whatever a receiver
 * answered, or an error said, is stored this way, so one reply can never fail a write.
 */
export function storableText(text: string, maxChars: number): string {
  let cut = text.length > maxChars ? text.slice(0, maxChars) : text;
  if (cut.length < text.length && isHighSurrogate(cut.charCodeAt(cut.length - 1))) cut = cut.slice(0, -1);
  return cut.replace(LONE_SURROGATE, '\uFFFD').replaceAll('\u0000', '\uFFFD');
}

/** Printable ASCII only (anything else becomes `?`): the excerpt kept when even storable text was refused. */
export const asciiExcerpt = (text: string, maxChars: number): string =>
  storableText(text, maxChars).replace(/[^\x20-\x7e\t\n\r]/g, '?');
