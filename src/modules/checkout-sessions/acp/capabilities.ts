import { PAYMENT_HANDLERS } from '../index.js';

// What we tell an agent we can do (rfc.capability_negotiation.md): the payment handler a session
// takes, the interventions both sides handle, and the extensions in use.

/** Where the answers point to (the deployment) and who the merchant is (the tenant). */
export interface AcpSettings {
  /** This deployment's public origin, e.g. `https://api.example.com`. */
  publicBaseUrl: string;
  environment: string;
  /** The tenant id: what the agent puts in a delegate_payment allowance's `merchant_id`. */
  merchantId: string;
}

export const DELEGATED_CARD_HANDLER = PAYMENT_HANDLERS.acpDelegatedCard;

/**
 * Interventions we can run (3DS, biometric, address verification): none. A session never asks
 * for one, so the intersection with any agent's is empty and `required` is too.
 */
const SELLER_INTERVENTIONS: readonly string[] = [];

export const ACCEPTED_BRANDS = ['visa', 'mastercard', 'amex', 'discover'];

export const DISCOUNT_EXTENSION = {
  name: 'discount',
  extends: [
    '$.CheckoutSessionCreateRequest.discounts',
    '$.CheckoutSessionUpdateRequest.discounts',
    '$.CheckoutSession.discounts',
  ],
};

const base = (settings: AcpSettings) => settings.publicBaseUrl.replace(/\/$/, '');

export const delegatePaymentUrl = (settings: AcpSettings) =>
  `${base(settings)}/api/v1/agentic_commerce/delegate_payment`;

/** The one handler: a card delegated through our delegate_payment endpoint, paid once. */
export function delegatedCardHandler(settings: AcpSettings) {
  return {
    id: DELEGATED_CARD_HANDLER,
    name: 'dev.acp.tokenized.card',
    display_name: 'Card',
    version: '2026-01-22',
    spec: 'https://acp.dev/handlers/tokenized.card',
    requires_delegate_payment: true,
    requires_pci_compliance: false,
    psp: 'commerce_agent_api',
    config_schema: 'https://acp.dev/schemas/handlers/tokenized.card/config.json',
    instrument_schemas: ['https://acp.dev/schemas/handlers/tokenized.card/instrument.json'],
    config: {
      merchant_id: settings.merchantId,
      delegate_payment_url: delegatePaymentUrl(settings),
      accepted_brands: ACCEPTED_BRANDS,
      supports_3ds: false,
      environment: settings.environment,
    },
  };
}

/** What both sides handle: the agent's `interventions.supported` meets ours (empty). */
export function interventionsFor(agentSupported: readonly string[] = []) {
  return {
    supported: SELLER_INTERVENTIONS.filter((i) => agentSupported.includes(i)),
    required: [] as string[],
    enforcement: 'conditional' as const,
  };
}

/**
 * The session's `capabilities`: the same on every answer (they depend on nothing the session
 * holds); the agent's are read on create, and not kept, since the intersection is empty anyway.
 */
export function sessionCapabilities(settings: AcpSettings, agentInterventions?: readonly string[]) {
  return {
    payment: { handlers: [delegatedCardHandler(settings)] },
    interventions: interventionsFor(agentInterventions),
    extensions: [DISCOUNT_EXTENSION],
  };
}
