import { BuiltinBilling } from '../billing/builtin/index.js';
import type { Clock } from '../clock.js';
import type { Db, Queryable } from '../db/client.js';
import { insertAccount } from '../modules/accounts/index.js';
import { saveIntegration } from '../modules/billing-admin/index.js';

/** The demo catalog's passthrough charge (Hardware key, "Carrier fee"), quoted by the engine. */
const CARRIER_FEE_CHARGE = '0190a000-0000-7000-8000-0000000000a8';

export interface DemoBilling {
  billingAccountId: string;
  accountId: string;
}

/**
 * The demo tenant's billing: the built-in engine as its integration, a billing account with two
 * open invoices and one paid, a card on file, and a local account linked to it by externalId.
 * Runs in the demo seed's transaction (the engine's own transactions nest as savepoints).
 */
export async function seedDemoBilling(tx: Queryable, tenantId: string, clock: Clock): Promise<DemoBilling> {
  const now = clock.now();
  const config = { passthroughRates: { [CARRIER_FEE_CHARGE]: 1200 } };
  await saveIntegration(tx, tenantId, 'builtin', config, now);
  const engine = new BuiltinBilling(tx as Db, clock, tenantId, config);
  const billing = await engine.createAccount(
    {
      name: 'Acme Corp',
      currency: 'USD',
      contacts: [{ name: 'Ada Lovelace', email: 'ap@acme.example', phone: null }],
    },
    'demo:account',
  );
  const invoice = async (key: string, description: string, quantity: number, unitAmountCents: number) => {
    const result = await engine.createInvoice({
      accountId: billing.id,
      currency: 'USD',
      lines: [{ description, quantity, unitAmountCents }],
      idempotencyKey: `demo:${key}`,
    });
    if (!result.ok) throw new Error(`demo invoice: ${result.failure.message}`);
    return result.value;
  };
  const paid = await invoice('invoice-1', 'Pro, 5 seats (first month)', 5, 2500);
  await engine.settleInvoice(paid.id, {
    amountCents: paid.amountCents,
    currency: 'USD',
    paymentReference: 'demo',
    idempotencyKey: 'demo:payment-1',
  });
  await invoice('invoice-2', 'Pro, 5 seats (second month)', 5, 2500);
  await invoice('invoice-3', 'Onboarding workshop', 1, 150000);
  await engine.addPaymentMethod(
    billing.id,
    { type: 'card', cardType: 'visa', lastFour: '4242', expirationMonth: 12, expirationYear: 2030 },
    'demo:card',
  );
  const account = await insertAccount(
    tx,
    tenantId,
    { name: 'Acme Corp', externalId: billing.id, email: 'ap@acme.example', website: 'https://acme.example' },
    now,
  );
  return { billingAccountId: billing.id, accountId: account.id };
}
