import { Type } from 'typebox';
import { PageQueryFields } from '../../core/paging.js';
import { StringEnum } from '../../core/schema.js';

export const AuditEntrySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  tenantId: Type.String({ format: 'uuid' }),
  action: Type.String({
    description: 'What happened, e.g. `order.create`, `order.update`, `api_key.revoke`.',
  }),
  resourceType: Type.String(),
  resourceId: Type.String(),
  actor: Type.Object({
    keyId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'API key that acted.' }),
    userId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'Console user that acted (signed in to the console); null for an API key or the system.',
    }),
  }),
  requestId: Type.Union([Type.String(), Type.Null()], {
    description: 'X-Request-Id of the request that acted.',
  }),
  details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description: 'For updates: `{ before, after }` holding only the changed fields.',
  }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const AuditQuerySchema = Type.Object(
  {
    action: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Case-insensitive substring of the action.' }),
    ),
    resourceType: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Only entries about this kind of resource, e.g. `order`.',
      }),
    ),
    resourceId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'Only entries about this resource id.' }),
    ),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601; entries at or after.' })),
    until: Type.Optional(
      Type.String({ format: 'date-time', description: 'ISO 8601; entries at or before.' }),
    ),
    sort: Type.Optional(
      StringEnum(['createdAt', '-createdAt'], {
        description: 'By creation time; `-` is newest first (default).',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Entries per page (default 50).' }),
    ),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10_000_000,
        default: 0,
        description: 'Entries to skip (default 0); not with `cursor`.',
      }),
    ),
    cursor: PageQueryFields.cursor,
  },
  { additionalProperties: false },
);

export const PaginationSchema = Type.Object({
  total: Type.Integer({ description: 'Entries matching the filters (not the size of this page).' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
});
