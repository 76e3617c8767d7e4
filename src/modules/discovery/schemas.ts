import { Type } from 'typebox';
import { BILLING_CAPABILITIES, type BillingCapability } from '../../billing/index.js';
import { EnvironmentSchema } from '../../core/context.js';
import { StringEnum } from '../../core/schema.js';
import { ScopeSchema } from '../../core/scopes.js';
import { RateTierSchema } from '../api-keys/index.js';

export const EventTypesSchema = Type.Array(Type.String(), {
  description: 'Every webhook event type this service emits (the live, complete list).',
});

export const ManifestSchema = Type.Object({
  service: Type.Object({ name: Type.String(), version: Type.String(), apiVersion: Type.String() }),
  environment: EnvironmentSchema,
  tenant: Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() }),
  key: Type.Object({
    id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'Null for a console session.',
    }),
    scopes: Type.Array(ScopeSchema, { description: 'Effective scopes (nested scopes expanded).' }),
    rateTier: RateTierSchema,
  }),
  capabilities: Type.Object({
    eventTypes: EventTypesSchema,
    scopes: Type.Array(ScopeSchema),
    rateLimitTiers: Type.Record(Type.String(), Type.Integer()),
    billing: Type.Object(
      {
        adapter: Type.Union([Type.String(), Type.Null()], {
          description: 'The active billing adapter; null: none.',
        }),
        capabilities: Type.Array(StringEnum(Object.keys(BILLING_CAPABILITIES) as BillingCapability[]), {
          description:
            'Optional capabilities it offers (`refunds`, `credits`...); without one, its operations answer 501.',
        }),
      },
      { description: 'The tenant’s billing system.' },
    ),
  }),
  links: Type.Object({
    openapi: Type.String(),
    capabilities: Type.String(),
  }),
});

export const OperationSchema = Type.Object({
  operationId: Type.String(),
  method: Type.String(),
  path: Type.String(),
  summary: Type.String(),
  requiredScope: Type.Union([ScopeSchema, Type.Null()]),
  allowed: Type.Boolean({ description: 'Whether the calling key may call this operation.' }),
});

export const CapabilitiesSchema = Type.Object({
  eventTypes: EventTypesSchema,
  eventTypeDescriptions: Type.Record(Type.String(), Type.String()),
  operations: Type.Array(OperationSchema, {
    description: 'Every public operation, with the key’s permission.',
  }),
  limits: Type.Object({
    rateLimitWindowSeconds: Type.Integer(),
    rateLimitTiers: Type.Record(Type.String(), Type.Integer()),
    idempotencyKeyMaxLength: Type.Integer(),
    idempotencyRetentionHours: Type.Integer(),
    maxRequestBodyBytes: Type.Integer(),
  }),
  environment: EnvironmentSchema,
});

export const OpenApiDocumentSchema = Type.Object(
  {
    openapi: Type.String(),
    info: Type.Object({}, { additionalProperties: true }),
    paths: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true, description: 'An OpenAPI 3.1 document.' },
);
