import { Type } from 'typebox';
import { EnvironmentSchema, RATE_TIERS } from '../../core/context.js';
import { StringEnum } from '../../core/schema.js';
import { ScopeSchema } from '../../core/scopes.js';

export const RateTierSchema = StringEnum(RATE_TIERS, {
  description: 'Requests per rolling 60 s: standard 60, premium 300, unlimited 10,000.',
});

const Timestamp = Type.String({ format: 'date-time' });

export const ApiKeySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  tenantId: Type.String({ format: 'uuid' }),
  name: Type.String(),
  environment: EnvironmentSchema,
  scopes: Type.Array(ScopeSchema, { description: 'Scopes as granted; they nest (admin > commerce > read).' }),
  rateTier: RateTierSchema,
  keyPrefix: Type.String({ description: 'First characters of the key, to tell keys apart.' }),
  status: StringEnum(['active', 'revoked']),
  createdAt: Timestamp,
  lastUsedAt: Type.Union([Timestamp, Type.Null()], { description: 'Updated at most once a minute.' }),
  revokedAt: Type.Union([Timestamp, Type.Null()]),
});

export const CreatedApiKeySchema = Type.Intersect([
  ApiKeySchema,
  Type.Object({
    key: Type.String({ description: 'The secret key. Shown only in this response: store it now.' }),
  }),
]);

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'A label, e.g. "checkout agent".' }),
    scopes: Type.Array(ScopeSchema, {
      minItems: 1,
      maxItems: 3,
      uniqueItems: true,
      description: 'What the key may do: `read`, `commerce` (includes read) or `admin` (includes both).',
    }),
    rateTier: Type.Optional(RateTierSchema),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'checkout agent', scopes: ['commerce'], rateTier: 'standard' }],
  },
);

export const ApiKeyParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'API key id.' }) });
