import { Type } from 'typebox';
import type { RequestContext } from '../../../http/context.js';
import { envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import { LOCALE_PATTERN, type Tenant } from '../service.js';

const defaultLocale = Type.String({
  pattern: LOCALE_PATTERN,
  maxLength: 35,
  examples: ['en'],
  description: 'The locale product content falls back to (BCP 47, e.g. `en`, `fr-CA`); `en` unless set.',
});

export const SettingsSchema = Type.Object({
  tenantId: Type.String({ format: 'uuid' }),
  name: Type.String(),
  usageMetering: Type.Boolean({
    description:
      'Record a platform usage event for each order created from a cart (after the response; never affects it).',
  }),
  autoApplyCredits: Type.Boolean({
    description: 'Apply an account’s credit to each invoice issued for it (on by default).',
  }),
  defaultLocale,
  allowLoopbackWebhooks: Type.Boolean({
    description: 'Sandbox only: webhooks may target loopback `http://` URLs (local development).',
  }),
});

export const PatchSettings = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'The tenant’s display name.' }),
    ),
    usageMetering: Type.Optional(Type.Boolean({ description: 'Record usage events for metered charges.' })),
    autoApplyCredits: Type.Optional(
      Type.Boolean({ description: 'Apply account credit to invoices as they are issued.' }),
    ),
    defaultLocale: Type.Optional(defaultLocale),
    allowLoopbackWebhooks: Type.Optional(
      Type.Boolean({ description: 'Let webhooks target loopback `http://` URLs. Sandbox only.' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ usageMetering: true }, { allowLoopbackWebhooks: true }],
    minProperties: 1,
  },
);

export const actions = [next('self', 'getTenantSettings'), next('update', 'updateTenantSettings')];

export const settingsResponse = (tenant: Tenant, ctx: RequestContext): Presented => ({
  status: 200,
  body: envelope(
    ctx,
    {
      tenantId: tenant.id,
      name: tenant.name,
      usageMetering: tenant.usageMetering,
      autoApplyCredits: tenant.autoApplyCredits,
      defaultLocale: tenant.defaultLocale,
      allowLoopbackWebhooks: tenant.allowLoopbackWebhooks,
    },
    actions,
  ),
});
