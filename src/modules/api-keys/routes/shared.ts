import { iso, isoOrNull } from '../../../core/format.js';
import type { RequestContext } from '../../../http/context.js';
import { envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import type { IssuedKey } from '../operations.js';
import type { ApiKey } from '../service.js';

export const TAGS = ['API keys'];

export const present = (key: ApiKey) => ({
  ...key,
  status: key.revokedAt ? ('revoked' as const) : ('active' as const),
  createdAt: iso(key.createdAt),
  lastUsedAt: isoOrNull(key.lastUsedAt),
  revokedAt: isoOrNull(key.revokedAt),
});

export const keyActions = (key: ApiKey) => [
  next('self', 'getApiKey', { id: key.id }),
  ...(key.revokedAt ? [] : [next('revoke', 'revokeApiKey', { id: key.id })]),
  next('list', 'listApiKeys'),
];

export const issuedResponse = ({ apiKey, secret }: IssuedKey, ctx: RequestContext): Presented => ({
  status: 201,
  body: envelope(ctx, { ...present(apiKey), key: secret }, keyActions(apiKey)),
});

export const keyResponse = (key: ApiKey, ctx: RequestContext): Presented => ({
  status: 200,
  body: envelope(ctx, present(key), keyActions(key)),
});
