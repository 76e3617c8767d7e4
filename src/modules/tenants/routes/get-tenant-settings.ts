import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { getTenant } from '../service.js';
import { SettingsSchema, settingsResponse } from './shared.js';

export const getTenantSettingsRoute = defineRoute({
  method: 'GET',
  path: '/admin/settings',
  operationId: 'getTenantSettings',
  summary: 'Get tenant settings',
  description: 'The calling tenant’s name and opt-in settings.',
  tags: ['Tenant admin'],
  scope: 'admin',
  responses: { 200: Envelope(SettingsSchema, 'The settings.') },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const tenant = await getTenant(deps.db, ctx.tenantId);
    if (!tenant) throw new Error(`key ${ctx.keyId} belongs to a missing tenant`);
    // The same presenter as the PATCH answer: one place lists the settings' fields.
    return settingsResponse(tenant, ctx).body;
  },
});
