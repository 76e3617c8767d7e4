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

export const ACP_REQUEST_KEYS_MAX = 5;
const B64URL = '^[A-Za-z0-9_-]+$';

/** An agent platform's public key (a JWK): ACP requests are signed with its private half. */
const AcpRequestKeySchema = Type.Object(
  {
    kid: Type.String({ minLength: 1, maxLength: 100, description: 'The key’s id, unique in the list.' }),
    kty: Type.Literal('EC'),
    crv: Type.Union([Type.Literal('P-256'), Type.Literal('P-384')], {
      description: 'P-256 (ES256) or P-384 (ES384).',
    }),
    x: Type.String({ minLength: 43, maxLength: 64, pattern: B64URL, description: 'base64url x coordinate.' }),
    y: Type.String({ minLength: 43, maxLength: 64, pattern: B64URL, description: 'base64url y coordinate.' }),
  },
  { additionalProperties: false },
);

const acpRequestKeys = Type.Array(AcpRequestKeySchema, {
  maxItems: ACP_REQUEST_KEYS_MAX,
  description:
    'Public keys (EC JWKs) of the agent platforms allowed to call this seller’s ACP checkout. While the ' +
    'list is not empty, every ACP request must carry `Timestamp` (RFC 3339, within 5 minutes) and ' +
    '`Signature`: base64url ECDSA (raw r||s) by one of these keys over `<METHOD> <path>\\n<Timestamp>\\n<RFC 8785 ' +
    'canonical JSON of the body, empty without one>`; otherwise 401 `signature_missing` or ' +
    '`signature_invalid`. Empty: ACP requests are authenticated by the API key alone. ' +
    `At most ${ACP_REQUEST_KEYS_MAX}; public keys only.`,
});

const acpKeyExample = {
  kid: 'platform-2026',
  kty: 'EC' as const,
  crv: 'P-256' as const,
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
};

export const sellerProfileExample = {
  displayName: 'Acme Outfitters',
  supportEmail: 'support@acme.example',
  supportUrl: 'https://acme.example/help',
  termsOfUseUrl: 'https://acme.example/terms',
  privacyPolicyUrl: 'https://acme.example/privacy',
  returnPolicyUrl: 'https://acme.example/returns',
  acpRequestKeys: [acpKeyExample],
};

export const SellerProfileSchema = Type.Object(
  {
    displayName: Type.String({
      description:
        'The name buyers and agents see for this seller: the one set with PATCH /seller, else the tenant’s name.',
    }),
    ...linkFields,
    acpRequestKeys,
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
    acpRequestKeys: Type.Optional(acpRequestKeys),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [
      { termsOfUseUrl: 'https://acme.example/terms', supportEmail: 'support@acme.example' },
      { returnPolicyUrl: null },
      { acpRequestKeys: [acpKeyExample] },
    ],
  },
);
