import { Type } from 'typebox';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { action, Envelope, envelope } from '../../http/envelope.js';
import { type Presented, respond } from '../../http/operation.js';
import type { TypedApp } from '../../http/types.js';
import { changeTenantSettings } from './operations.js';
import { getTenant, type Tenant } from './service.js';

const SettingsSchema = Type.Object({
  tenantId: Type.String({ format: 'uuid' }),
  name: Type.String(),
  usageMetering: Type.Boolean({
    description:
      'Record a platform usage event for each order created from a cart (after the response; never affects it).',
  }),
  autoApplyCredits: Type.Boolean({
    description: 'Apply an account’s credit to each invoice issued for it (on by default).',
  }),
});

const PatchSettings = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'The tenant’s display name.' }),
    ),
    usageMetering: Type.Optional(Type.Boolean({ description: 'Record usage events for metered charges.' })),
    autoApplyCredits: Type.Optional(
      Type.Boolean({ description: 'Apply account credit to invoices as they are issued.' }),
    ),
  },
  { additionalProperties: false, examples: [{ usageMetering: true }], minProperties: 1 },
);

const actions = [
  action('self', 'GET', '/admin/settings', 'admin'),
  action('update', 'PATCH', '/admin/settings', 'admin'),
];

const settingsResponse = (tenant: Tenant, ctx: RequestContext): Presented => ({
  status: 200,
  body: envelope(
    ctx,
    {
      tenantId: tenant.id,
      name: tenant.name,
      usageMetering: tenant.usageMetering,
      autoApplyCredits: tenant.autoApplyCredits,
    },
    actions,
  ),
});

/** The calling tenant's own settings. */
export function registerTenantRoutes(app: TypedApp, deps: Deps) {
  app.get(
    '/api/v1/admin/settings',
    {
      config: { public: true, scope: 'admin' },
      schema: {
        operationId: 'getTenantSettings',
        summary: 'Get tenant settings',
        description: 'The calling tenant’s name and opt-in settings.',
        tags: ['Tenant admin'],
        response: { 200: Envelope(SettingsSchema, 'The settings.') },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const tenant = await getTenant(deps.db, ctx.tenantId);
      if (!tenant) throw new Error(`key ${ctx.keyId} belongs to a missing tenant`);
      return envelope(
        ctx,
        {
          tenantId: tenant.id,
          name: tenant.name,
          usageMetering: tenant.usageMetering,
          autoApplyCredits: tenant.autoApplyCredits,
        },
        actions,
      );
    },
  );

  app.patch(
    '/api/v1/admin/settings',
    {
      config: { public: true, scope: 'admin' },
      schema: {
        operationId: 'updateTenantSettings',
        summary: 'Update tenant settings',
        description: 'Renames the tenant and/or turns usage metering or applying credit on issue on or off.',
        tags: ['Tenant admin'],
        body: PatchSettings,
        response: { 200: Envelope(SettingsSchema, 'The settings.') },
      },
    },
    async (request, reply) =>
      respond(
        deps,
        request,
        reply,
        (ctx, key) => changeTenantSettings(deps, ctx, request.body, key),
        settingsResponse,
      ),
  );
}
