import { iso } from '../../../core/format.js';
import type { RequestContext } from '../../../http/context.js';
import type { Deps } from '../../../http/deps.js';
import { envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import type { ConfiguredProvider } from '../operations.js';
import { callbackPath } from '../sandbox.js';
import type { ProviderIntegrationRow } from '../service.js';

export const tags = ['Payment provider admin'];

export const adminActions = [
  next('self', 'getPaymentProvider'),
  next('rotate', 'putPaymentProvider'),
  next('simulate', 'simulateProviderEvent'),
];

export function presentIntegration(deps: Deps, row: ProviderIntegrationRow) {
  return {
    provider: row.provider,
    endpointId: row.endpointId,
    callbackUrl: deps.config.publicBaseUrl + callbackPath(row.provider, row.endpointId),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** A configured integration with its new secret: the one response that shows it. */
export const issuedResponse =
  (deps: Deps) =>
  ({ row, secret }: ConfiguredProvider, ctx: RequestContext): Presented => ({
    status: 200,
    body: envelope(ctx, { ...presentIntegration(deps, row), secret }, adminActions),
  });
