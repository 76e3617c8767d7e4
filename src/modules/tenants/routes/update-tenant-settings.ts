import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { respond } from '../../../http/operation.js';
import { changeTenantSettings } from '../operations.js';
import { PatchSettings, SettingsSchema, settingsResponse } from './shared.js';

export const updateTenantSettingsRoute = defineRoute({
  method: 'PATCH',
  path: '/admin/settings',
  operationId: 'updateTenantSettings',
  summary: 'Update tenant settings',
  description:
    'Renames the tenant, turns usage metering, applying credit on issue or (sandbox only) loopback webhook ' +
    'targets on or off, and/or sets the default locale of product content.',
  tags: ['Tenant admin'],
  scope: 'admin',
  body: PatchSettings,
  responses: { 200: Envelope(SettingsSchema, 'The settings.') },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) => changeTenantSettings(deps, ctx, request.body, key),
      settingsResponse,
    ),
});
