import { Type } from 'typebox';
import { BillingAccountSchema } from '../../billing/schemas.js';
import { ACCOUNT_IDS } from '../../core/agent-guide.js';
import { PageQueryFields } from '../../core/paging.js';
import { TagQueryFields, TagsSchema } from '../../core/tags.js';

const Timestamp = Type.String({ format: 'date-time' });

/**
 * An optional text field that may also be null, as `type: [string, null]` rather than a union, so
 * a bad value gets one error naming the rule (`maxLength`, `format`) instead of one per branch.
 */
const NullableText = (maxLength: number, description: string, format?: 'email') =>
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    maxLength,
    ...(format ? { format } : {}),
    description,
  });

const Name = Type.String({ minLength: 1, maxLength: 255, description: 'Display name.' });

const fields = {
  externalId: NullableText(
    255,
    'Your own id, one account per value. A billing-system account id (e.g. `ba_...`) links the account to ' +
      'its invoices, subscriptions, payment methods and credit.',
  ),
  email: NullableText(255, 'Primary email address.', 'email'),
  phone: NullableText(50, 'Phone number, free form.'),
  website: NullableText(500, 'Website URL.'),
  industry: NullableText(100, 'Industry.'),
};

export const AccountSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Internal organization id (UUID).' }),
    tenantId: Type.String({ format: 'uuid', description: 'The owning tenant.' }),
    name: Type.String(),
    externalId: Type.Union([Type.String(), Type.Null()], {
      description: 'Your own id; when it is a billing-system account id it links the billing sub-lists.',
    }),
    email: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    website: Type.Union([Type.String(), Type.Null()]),
    industry: Type.Union([Type.String(), Type.Null()]),
    tags: TagsSchema,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'A tenant-owned account (organization).' },
);

/** What GET /accounts/{id} answers: a local account, or one resolved through the billing adapter. */
export const AccountOrBillingSchema = Type.Union([AccountSchema, BillingAccountSchema], {
  description:
    'A tenant-owned account, or, when the id is a billing-system account id, the billing system’s account ' +
    '(recognisable by `source: "billing"`).',
});

export const AccountCreate = Type.Object(
  {
    name: Name,
    externalId: Type.Optional(fields.externalId),
    email: Type.Optional(fields.email),
    phone: Type.Optional(fields.phone),
    website: Type.Optional(fields.website),
    industry: Type.Optional(fields.industry),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'Initech', externalId: 'ba_9f2k4m6p8r0t2v4x6z8b', email: 'ap@initech.example' }],
  },
);

// externalId is set at creation only (SPEC.md lists no externalId on PATCH).
export const AccountUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    email: Type.Optional(fields.email),
    phone: Type.Optional(fields.phone),
    website: Type.Optional(fields.website),
    industry: Type.Optional(fields.industry),
  },
  {
    additionalProperties: false,
    examples: [{ phone: '+1 555 0100', website: 'https://initech.example' }],
    description:
      'Every field is optional (SPEC.md): `{}`, or values equal to the current ones, changes nothing and answers 200 with the account as it is (no audit entry, no event).',
  },
);

/** The longest `q` of GET /accounts: a name or an address, not a document. */
export const ACCOUNT_SEARCH_MAX_LENGTH = 100;

export const AccountListQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: ACCOUNT_SEARCH_MAX_LENGTH,
        description: 'In name or email, any case.',
      }),
    ),
    ...TagQueryFields,
    ...PageQueryFields,
  },
  { additionalProperties: false },
);

export const AccountIdParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 255,
    description: ACCOUNT_IDS.text,
  }),
});
