import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { AppError } from './core/errors.js';
import type { Deps } from './deps.js';
import { registerActionOperations } from './http/action-operations.js';
import { registerApiReference } from './http/api-reference.js';
import { registerCompression } from './http/compression.js';
import { registerConsoleAssets } from './http/console-assets.js';
import { registerRoutes } from './http/declared-route.js';
import { registerErrorHandling, sendError } from './http/error-handler.js';
import { registerRequestGate } from './http/gate.js';
import { registerOpenApi, SERVICE_NAME } from './http/openapi.js';
import { registerIdempotentReplay } from './http/operation.js';
import { registerProtectedResource } from './http/protected-resource.js';
import { requestIdFor } from './http/request-id.js';
import { RouteRegistry, registerRouteRegistry } from './http/route-registry.js';
import { registerTagRoutes } from './http/tag-routes.js';
import { registerMetricsEndpoint, registerRequestTelemetry } from './http/telemetry.js';
import { registerTextGuard } from './http/text-guard.js';
import type { TypedApp } from './http/types.js';
import { validatorCompiler } from './http/validation.js';
import { registerMcpRoutes } from './mcp/server.js';
import { accountRoutes, accountTagTarget } from './modules/accounts/routes/index.js';
import { apiKeyRoutes } from './modules/api-keys/routes/index.js';
import { auditRoutes } from './modules/audit/routes/index.js';
import { billingAdminRoutes } from './modules/billing-admin/routes/index.js';
import { cartRoutes } from './modules/carts/routes/index.js';
import { catalogAdminRoutes } from './modules/catalog/routes/index.js';
import { acpRoutes } from './modules/checkout-sessions/acp/routes/index.js';
import { checkoutSessionRoutes } from './modules/checkout-sessions/routes/index.js';
import { ucpRoutes } from './modules/checkout-sessions/ucp/routes/index.js';
import { contentRoutes } from './modules/content/routes/index.js';
import { creditRoutes } from './modules/credits/routes/index.js';
import { registerDiscoveryRoutes } from './modules/discovery/routes.js';
import { feedRoutes } from './modules/feeds/routes/index.js';
import { registerHealthRoutes } from './modules/health/routes.js';
import { intentRoutes } from './modules/intent-review/routes/index.js';
import { orderRoutes, orderTagTarget } from './modules/orders/routes/index.js';
import { overviewRoutes } from './modules/overview/routes/index.js';
import { partnerRoutes } from './modules/partners/routes/index.js';
import { paymentMethodRoutes } from './modules/payment-methods/routes/index.js';
import { paymentRoutes, paymentSessionTagTarget, refundRoutes } from './modules/payments/routes/index.js';
import { policyRoutes } from './modules/policies/routes/index.js';
import { pricingRoutes } from './modules/pricing/routes/index.js';
import { productContentRoutes } from './modules/product-content/routes/index.js';
import { providerEventRoutes, registerProviderCallback } from './modules/provider-events/routes/index.js';
import { sellerRoutes } from './modules/seller/routes/index.js';
import { shippingRoutes } from './modules/shipping/routes/index.js';
import { stockedProductCrud } from './modules/stock/index.js';
import { stockRoutes } from './modules/stock/routes/index.js';
import { storefrontRoutes } from './modules/storefront/routes/index.js';
import { entitlementRoutes } from './modules/subscriptions/entitlements/routes/index.js';
import { emitProductEntitlementsChanged } from './modules/subscriptions/index.js';
import { previewRoutes } from './modules/subscriptions/previews/routes/index.js';
import { subscriptionRoutes, subscriptionTagTarget } from './modules/subscriptions/routes/index.js';
import { teamRoutes } from './modules/team/routes/index.js';
import { tenantRoutes } from './modules/tenants/routes/index.js';
import { webhookRoutes } from './modules/webhooks/routes/index.js';

export type App = TypedApp & { registry: RouteRegistry };

/** Builds the HTTP app on already-open dependencies; `listen` is the caller's business. */
export interface BuildOptions {
  /** Extra route registrations after the modules' (tests use it for failure routes). */
  extraRoutes?: (app: TypedApp) => void;
}

/**
 * What Node's HTTP parser refuses before any route (an oversized header block, malformed HTTP)
 * is answered in our error body too, not Node's.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const error = tooLarge
    ? new AppError(
        'headers_too_large',
        'The request headers are larger than the server accepts (16 KiB in all)',
      )
    : new AppError('validation_failed', 'The request is not valid HTTP/1.1');
  const body = JSON.stringify({ error: error.message, code: error.code, requestId: randomUUID() });
  socket.end(
    `HTTP/1.1 ${error.status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

export async function buildApp(deps: Deps, options: BuildOptions = {}): Promise<App> {
  const app: TypedApp = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.config.bodyLimitBytes,
    genReqId: requestIdFor,
    requestIdHeader: false,
    // One line per request, with the tenant, key, operation and error code (http/telemetry.ts).
    logController: new LogController({ disableRequestLogging: true }),
    exposeHeadRoutes: false,
    // While shutting down, requests already on open connections are served, not refused.
    return503OnClosing: false,
    // Path ids may be up to 255 characters (billing ids): longer params reach the schema's 400.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    // Bad URLs and over-long params, which the router rejects itself, get our error body too.
    frameworkErrors: (error, request, reply) =>
      sendError(
        reply,
        request,
        new AppError('validation_failed', error.message, [
          { field: 'path', rule: 'url', message: error.message },
        ]),
      ),
    trustProxy: deps.config.trustProxy as boolean,
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();
  // First: the request's span wraps every hook after it.
  registerRequestTelemetry(app, deps.metrics, deps.requestErrors);
  app.setValidatorCompiler(validatorCompiler);
  // Only JSON bodies are accepted: anything else is 415, not a string handed to a handler.
  app.removeContentTypeParser('text/plain');
  // An empty body sent with `Content-Type: application/json` (common from HTTP clients on POSTs
  // that take no body, such as /test or /replay) is no body, not invalid JSON. Otherwise
  // Fastify's own parser, with its prototype-poisoning protection.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '') return done(null, undefined);
    if (request.routeOptions.config.protocol) request.rawBody = text;
    parseJson(request, text, done);
  });

  const registry = new RouteRegistry();
  registerRouteRegistry(app, registry);
  await registerCompression(app);
  registerErrorHandling(app);
  registerActionOperations(app, () => registry.publicOperations);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  registerRequestGate(app, {
    apiKeys: deps.apiKeys,
    consoleSessions: deps.consoleSessions,
    environment: deps.config.appEnv,
    rateLimiter: deps.rateLimiter,
    clock: deps.clock,
  });
  registerTextGuard(app);
  registerIdempotentReplay(app, deps);
  await registerOpenApi(app, deps.config);

  registerHealthRoutes(app, deps);
  registerDiscoveryRoutes(app, deps, registry);
  registerRoutes(app, deps, apiKeyRoutes);
  registerRoutes(app, deps, teamRoutes);
  registerRoutes(app, deps, auditRoutes);
  // A product's entitlements reach the accounts holding it: entitlements.changed for each set it
  // changes. Admin products are shown with their stock (the stock module sits above the catalog).
  registerRoutes(app, deps, catalogAdminRoutes(emitProductEntitlementsChanged, stockedProductCrud));
  registerRoutes(app, deps, partnerRoutes);
  registerRoutes(app, deps, storefrontRoutes);
  registerRoutes(app, deps, productContentRoutes);
  registerRoutes(app, deps, pricingRoutes);
  registerRoutes(app, deps, cartRoutes);
  registerRoutes(app, deps, orderRoutes);
  registerRoutes(app, deps, providerEventRoutes);
  registerProviderCallback(app, deps);
  registerRoutes(app, deps, paymentMethodRoutes);
  registerRoutes(app, deps, webhookRoutes);
  registerRoutes(app, deps, paymentRoutes);
  registerRoutes(app, deps, refundRoutes);
  registerRoutes(app, deps, creditRoutes);
  registerRoutes(app, deps, tenantRoutes);
  registerRoutes(app, deps, accountRoutes);
  registerRoutes(app, deps, billingAdminRoutes);
  registerRoutes(app, deps, intentRoutes);
  registerRoutes(app, deps, overviewRoutes);
  registerRoutes(app, deps, policyRoutes);
  registerRoutes(app, deps, shippingRoutes);
  registerRoutes(app, deps, sellerRoutes);
  registerRoutes(app, deps, contentRoutes);
  registerRoutes(app, deps, stockRoutes);
  registerRoutes(app, deps, feedRoutes);
  registerRoutes(app, deps, checkoutSessionRoutes);
  registerRoutes(app, deps, subscriptionRoutes);
  registerTagRoutes(app, deps, [
    accountTagTarget(deps),
    orderTagTarget(deps),
    subscriptionTagTarget(deps),
    paymentSessionTagTarget(),
  ]);
  registerRoutes(app, deps, previewRoutes);
  registerRoutes(app, deps, entitlementRoutes);
  registerRoutes(app, deps, acpRoutes);
  registerRoutes(app, deps, ucpRoutes);
  registerMcpRoutes(app, { publicBaseUrl: deps.config.publicBaseUrl });
  registerProtectedResource(app, { publicBaseUrl: deps.config.publicBaseUrl, name: SERVICE_NAME });
  registerApiReference(app);
  registerConsoleAssets(app, deps.config.consoleDir);
  registerMetricsEndpoint(app, {
    metrics: deps.metrics,
    token: deps.config.metricsToken,
    apiKeys: deps.apiKeys,
  });
  options.extraRoutes?.(app);

  await app.ready();
  return Object.assign(app, { registry });
}
