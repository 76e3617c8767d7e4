import { Type } from 'typebox';
import { TAG_FILTERS } from './agent-guide.js';
import { validationFailed } from './errors.js';

/**
 * Key/value tags on accounts, orders, subscriptions and payment sessions: the bounds, the
 * schemas every tagged resource shares, and the pure parts (the change of a tag set, the
 * `tag=key:value` list filter). `src/db/tags.ts` turns a filter into SQL.
 */

export type Tags = Record<string, string>;

/** At most this many tags per resource: the 51st distinct key is refused, replacing one is not. */
export const MAX_TAGS = 50;
export const TAG_KEY_MAX_LENGTH = 40;
export const TAG_VALUE_MAX_LENGTH = 256;
/** `tag` filters per list request (AND). */
export const MAX_TAG_FILTERS = 10;

// `:` separates key and value in the filter, so a key has none.
const KEY_PATTERN = '^[a-zA-Z0-9_.-]+$';
// One line: a filter value is `.`, which matches no line break.
const VALUE_PATTERN = '^.*$';
const FILTER_PATTERN = `^[a-zA-Z0-9_.-]{1,${TAG_KEY_MAX_LENGTH}}:.{1,${TAG_VALUE_MAX_LENGTH}}$`;

export const TagsSchema = Type.Record(Type.String(), Type.String(), {
  description: `Your key/value tags, \`{}\` when none (at most ${MAX_TAGS}); set with PUT …/tags/{key}.`,
});

export const TagKey = Type.String({
  minLength: 1,
  maxLength: TAG_KEY_MAX_LENGTH,
  pattern: KEY_PATTERN,
  description: 'Tag key.',
});

export const TagBody = Type.Object(
  {
    value: Type.String({
      minLength: 1,
      maxLength: TAG_VALUE_MAX_LENGTH,
      pattern: VALUE_PATTERN,
      description: 'Tag value, one line.',
    }),
  },
  { additionalProperties: false, examples: [{ value: 'enterprise' }] },
);

/** The `tag` filter of a list query; a single `tag=` is read as a list of one. */
export const TagQueryFields = {
  tag: Type.Optional(
    Type.Array(Type.String({ pattern: FILTER_PATTERN }), {
      maxItems: MAX_TAG_FILTERS,
      description: TAG_FILTERS.text,
    }),
  ),
};

/** The value of `key`, only when it is the tags' own (never `constructor` of Object.prototype). */
export const tagValue = (tags: Tags, key: string): string | undefined =>
  Object.hasOwn(tags, key) ? tags[key] : undefined;

/**
 * The tags with `key` set to `value`. A new key beyond MAX_TAGS is 400 `validation_failed`
 * naming `path.key` with rule `maxTags`; replacing a key's value is always allowed.
 */
export function withTag(tags: Tags, key: string, value: string): Tags {
  if (tagValue(tags, key) === undefined && Object.keys(tags).length >= MAX_TAGS)
    throw validationFailed(
      'path.key',
      'maxTags',
      `path.key would be tag ${MAX_TAGS + 1}: a resource holds at most ${MAX_TAGS} tags; delete one first`,
    );
  // A computed key defines an own property, even `__proto__`.
  return { ...tags, [key]: value };
}

/** The tags without `key`. */
export function withoutTag(tags: Tags, key: string): Tags {
  return Object.fromEntries(Object.entries(tags).filter(([k]) => k !== key));
}

/**
 * The `tag=key:value` filters (already checked by the query schema) as one object a row's tags
 * must contain; undefined without filters; null when two ask different values of one key
 * (no row has both).
 */
export function tagFilter(filters: readonly string[] | undefined): Tags | null | undefined {
  if (!filters || filters.length === 0) return undefined;
  const wanted: Tags = {};
  for (const filter of filters) {
    const at = filter.indexOf(':');
    const key = filter.slice(0, at);
    const value = filter.slice(at + 1);
    const known = tagValue(wanted, key);
    if (known !== undefined && known !== value) return null;
    Object.defineProperty(wanted, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return wanted;
}
