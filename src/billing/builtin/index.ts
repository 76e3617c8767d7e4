import { Type } from 'typebox';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import type { BillingAdapterFactory } from '../adapter.js';
import { BuiltinBilling, type BuiltinConfig } from './engine.js';

export { BuiltinBilling, type BuiltinConfig } from './engine.js';
export { ACCOUNT_ID as BUILTIN_ACCOUNT_ID } from './ids.js';
export { voidRefusal } from './invoices.js';

export const BuiltinConfigSchema = Type.Object(
  {
    passthroughRates: Type.Optional(
      Type.Record(Type.String({ format: 'uuid' }), Type.Integer({ minimum: 0, maximum: 1_000_000_000 }), {
        description: 'Unit price (minor units) of passthrough charges by charge id, for live quotes.',
      }),
    ),
    defaultPassthroughUnitCents: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000_000,
        description: 'Unit price of passthrough charges without a rate.',
      }),
    ),
    hostedInvoiceBaseUrl: Type.Optional(
      Type.String({ format: 'uri', maxLength: 500, description: 'Invoices link to <base>/<invoice id>.' }),
    ),
    paymentTermsDays: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 365, description: 'Due date offset (default 30).' }),
    ),
  },
  { additionalProperties: false },
);

export function builtinFactory(deps: { db: Db; clock: Clock }): BillingAdapterFactory {
  return {
    name: 'builtin',
    description:
      'The embedded billing engine: billing accounts (`ba_` + 20 [0-9a-z]), invoices (`in_...`), payments, ' +
      'subscriptions and payment methods in this deployment’s own database.',
    configSchema: BuiltinConfigSchema,
    create: (tenantId, config) => new BuiltinBilling(deps.db, deps.clock, tenantId, config as BuiltinConfig),
  };
}
