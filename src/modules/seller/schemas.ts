import { Type } from 'typebox';

export const DISPLAY_NAME_MAX = 200;
export const SELLER_URL_MAX = 2048;
export const SUPPORT_EMAIL_MAX = 254;

const HttpsUrl = (description: string) =>
  Type.String({
    format: 'uri',
    pattern: '^https://[^\\s]+$',
    minLength: 9,
    maxLength: SELLER_URL_MAX,
    description: `${description} An absolute https URL, at most ${SELLER_URL_MAX} characters.`,
  });

const Nullable = (schema: ReturnType<typeof Type.String>, what: string) =>
  Type.Union([schema, Type.Null()], {
    description: `${String((schema as { description?: string }).description)} Null: ${what}.`,
  });

const linkFields = {
  supportEmail: Nullable(
    Type.String({
      format: 'email',
      minLength: 3,
      maxLength: SUPPORT_EMAIL_MAX,
      description: 'Where buyers write for help with an order, e.g. `support@shop.example`.',
    }),
    'none given',
  ),
  supportUrl: Nullable(HttpsUrl('A help page or contact form for buyers.'), 'none given'),
  termsOfUseUrl: Nullable(
    HttpsUrl('The terms of use; agentic checkouts link it as `terms_of_use`.'),
    'none given',
  ),
  privacyPolicyUrl: Nullable(
    HttpsUrl('The privacy policy; agentic checkouts link it as `privacy_policy`.'),
    'none given',
  ),
  returnPolicyUrl: Nullable(
    HttpsUrl('The return and refund policy; agentic checkouts link it as `return_policy`.'),
    'none given',
  ),
};

export const sellerProfileExample = {
  displayName: 'Acme Outfitters',
  supportEmail: 'support@acme.example',
  supportUrl: 'https://acme.example/help',
  termsOfUseUrl: 'https://acme.example/terms',
  privacyPolicyUrl: 'https://acme.example/privacy',
  returnPolicyUrl: 'https://acme.example/returns',
};

export const SellerProfileSchema = Type.Object(
  {
    displayName: Type.String({
      description:
        'The name buyers and agents see for this seller: the one set with PATCH /seller, else the tenant’s name.',
    }),
    ...linkFields,
    updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the profile was last changed; null while it was never set (all defaults).',
    }),
  },
  {
    description:
      'How this tenant presents itself as a seller to buyers and agent platforms (ACP and UCP checkouts).',
    examples: [{ ...sellerProfileExample, updatedAt: '2026-04-20T09:30:00.000Z' }],
  },
);

export const UpdateSellerProfileBody = Type.Object(
  {
    displayName: Type.Optional(
      Type.Union(
        [
          Type.String({
            minLength: 1,
            maxLength: DISPLAY_NAME_MAX,
            pattern: '\\S',
            description: `The seller name shown to buyers, 1-${DISPLAY_NAME_MAX} characters.`,
          }),
          Type.Null(),
        ],
        { description: 'The seller name shown to buyers. Null: back to the tenant’s name.' },
      ),
    ),
    supportEmail: Type.Optional(linkFields.supportEmail),
    supportUrl: Type.Optional(linkFields.supportUrl),
    termsOfUseUrl: Type.Optional(linkFields.termsOfUseUrl),
    privacyPolicyUrl: Type.Optional(linkFields.privacyPolicyUrl),
    returnPolicyUrl: Type.Optional(linkFields.returnPolicyUrl),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [
      { termsOfUseUrl: 'https://acme.example/terms', supportEmail: 'support@acme.example' },
      { returnPolicyUrl: null },
    ],
  },
);
