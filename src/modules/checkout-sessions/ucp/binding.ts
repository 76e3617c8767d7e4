import type { OperationContext } from '../../../core/context.js';
import { AppError, notFound } from '../../../core/errors.js';
import type { OperationKey, ServiceDeps } from '../../../unit-of-work/index.js';
import { getSellerProfile, type SellerProfile, sellerSigningKeys } from '../../seller/index.js';
import { platformUrlProblem } from '../../webhooks/index.js';
import { type CompleteInput, completeCheckout } from '../complete.js';
import type { CheckoutSession } from '../model.js';
import { getCheckout } from '../operations.js';
import { capabilitiesFor, type Negotiated, negotiate, profileUrlOf } from './negotiation.js';
import { queueOrderCreated } from './order-webhooks.js';
import { isUuid } from './placed-orders.js';
import type { CheckoutPresentation } from './present-checkout.js';
import { platformProfile } from './profile-fetch.js';
import {
  BUSINESS_CAPABILITIES,
  CAPABILITY,
  paymentHandlers,
  SHOPPING_SERVICE,
  shoppingServices,
  UCP_VERSION,
} from './protocol.js';

// What every UCP call needs besides its operation: the negotiation with the calling platform,
// the facts a checkout answer presents (the seller's links), the business profile, and a
// completion with its order webhook.

/** 404 not_found for a session id that cannot be one of ours (ids are UUIDs). */
export function assertSessionId(id: string): void {
  if (!isUuid(id)) throw notFound('Checkout session');
}

/** Our absolute base URL (PUBLIC_BASE_URL): endpoints, continue_url and permalinks start with it. */
export const publicBase = (deps: ServiceDeps) => deps.config.publicBaseUrl.replace(/\/+$/, '');

/** Negotiates with the platform the UCP-Agent header names (its profile fetched or cached). */
export async function negotiateWith(
  deps: ServiceDeps,
  ucpAgent: string | string[] | undefined,
): Promise<Negotiated> {
  const url = profileUrlOf(ucpAgent);
  return negotiate(await platformProfile(url, deps), url);
}

/**
 * What a new checkout keeps of its platform: its profile URL and its order webhook URL, checked
 * now by the webhook target rules (https, public; loopback http when private targets are allowed)
 * so that queuing the order webhook never refuses: a URL we cannot send to is 422 profile_malformed.
 */
export async function platformOf(deps: ServiceDeps, negotiated: Negotiated) {
  const { webhookUrl, profileUrl } = negotiated;
  if (webhookUrl) {
    const problem = await platformUrlProblem(webhookUrl, deps.config.webhookAllowPrivateTargets);
    if (problem) throw new AppError('profile_malformed', `The platform profile’s order ${problem.message}`);
  }
  return { webhookUrl, profileUrl };
}

const LINKS: [keyof SellerProfile, string, string][] = [
  ['termsOfUseUrl', 'terms_of_service', 'Terms of use'],
  ['privacyPolicyUrl', 'privacy_policy', 'Privacy policy'],
  ['returnPolicyUrl', 'refund_policy', 'Return policy'],
  ['supportUrl', 'support', 'Support'],
];

/** The seller's policy pages as UCP links (those it set, absolute URLs only). */
export function linksOf(seller: SellerProfile) {
  return LINKS.flatMap(([field, type, title]) => {
    const url = seller[field];
    return typeof url === 'string' && URL.canParse(url) ? [{ type, url, title }] : [];
  });
}

/** How checkout answers of this call are presented (read before the operation: presenting is synchronous). */
export async function checkoutPresentation(
  deps: ServiceDeps,
  tenantId: string,
  negotiated: Negotiated,
): Promise<CheckoutPresentation> {
  const seller = await getSellerProfile(deps.db, tenantId);
  return {
    base: publicBase(deps),
    ucp: {
      version: negotiated.version,
      status: 'success',
      capabilities: capabilitiesFor(negotiated, CAPABILITY.checkout),
      payment_handlers: paymentHandlers(deps.config.appEnv),
    },
    discount: negotiated.active.has(CAPABILITY.discount),
    fulfillment: negotiated.active.has(CAPABILITY.fulfillment),
    links: linksOf(seller),
  };
}

/** The business profile of a tenant (/.well-known/ucp): what we serve and the keys we sign with. */
export async function businessProfile(deps: ServiceDeps, tenantId: string) {
  const keys = await sellerSigningKeys(deps, tenantId);
  return {
    ucp: {
      version: UCP_VERSION,
      services: { [SHOPPING_SERVICE]: shoppingServices(publicBase(deps)) },
      capabilities: Object.fromEntries(
        Object.entries(BUSINESS_CAPABILITIES).map(([name, declaration]) => [name, [declaration]]),
      ),
      payment_handlers: paymentHandlers(deps.config.appEnv),
    },
    signing_keys: keys.map((k) => ({ ...k.publicJwk, kid: k.kid })),
  };
}

/**
 * Completes a checkout with its order webhook queued in the same unit of work. A checkout not
 * ready is a business outcome in UCP, not an error: it answers as it stands, its messages saying
 * what is missing.
 */
export function completeForPlatform(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: CompleteInput,
  key: OperationKey<CheckoutSession>,
): Promise<CheckoutSession> {
  const withWebhook = { ...input, onPlaced: queueOrderCreated(deps) };
  return completeCheckout(deps, ctx, withWebhook, key).catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'checkout_not_ready') return getCheckout(deps, ctx, input.id);
    throw err;
  });
}
