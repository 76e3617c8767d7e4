import type { FastifyReply } from 'fastify';
import type { Static } from 'typebox';
import { capabilitiesOf } from '../../billing/index.js';
import { hasScope, SCOPES } from '../../core/scopes.js';
import { EVENT_TYPE_NAMES, EVENT_TYPES } from '../../events/event-types.js';
import { requireCtx } from '../../http/auth.js';
import { cacheablePerKey } from '../../http/cache.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { Envelope, envelope, next } from '../../http/envelope.js';
import {
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_RETENTION_HOURS,
  RATE_LIMIT_TIERS,
  RATE_LIMIT_WINDOW_SECONDS,
} from '../../http/limits.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../../http/openapi.js';
import type { RouteRegistry } from '../../http/route-registry.js';
import type { TypedApp } from '../../http/types.js';
import { getTenant } from '../tenants/index.js';
import { CapabilitiesSchema, ManifestSchema, OpenApiDocumentSchema } from './schemas.js';

type OpenApiDocument = Static<typeof OpenApiDocumentSchema>;

const OPENAPI_PATHS = ['/api/v1/openapi.json', '/.well-known/agent-tools.json', '/openapi.json'] as const;

/** Discovery documents may be read from any origin (SPEC.md section 5.6); data endpoints may not. */
function allowAnyOrigin(reply: FastifyReply) {
  reply.header('Access-Control-Allow-Origin', '*');
  reply.header('Access-Control-Allow-Methods', 'GET, OPTIONS');
  reply.header('Access-Control-Allow-Headers', 'Content-Type');
  reply.header('Access-Control-Max-Age', '86400');
}

/** The manifest, recorded from the real route (ids replaced by fixed ones). */
export const manifestExample = {
  data: {
    service: {
      name: 'Commerce Agent API',
      version: '0.1.0',
      apiVersion: 'v1',
    },
    environment: 'sandbox',
    tenant: {
      id: '0190b000-0000-7000-8000-000000000001',
      name: 'Acme Shop',
    },
    key: {
      id: '0190b000-0000-7000-8000-000000000002',
      scopes: ['read', 'commerce'],
      rateTier: 'unlimited',
    },
    capabilities: {
      eventTypes: [
        'account.created',
        'account.updated',
        'order.created',
        'order.updated',
        'subscription.created',
        'subscription.changed',
        'subscription.cancelled',
        'subscription.renewed',
        'payment.session_created',
        'payment.succeeded',
        'payment.failed',
        'invoice.created',
        'invoice.paid',
        'invoice.failed',
        'webhook.test',
      ],
      scopes: ['read', 'commerce', 'admin'],
      rateLimitTiers: {
        standard: 60,
        premium: 300,
        unlimited: 10000,
      },
      billing: { adapter: 'builtin', capabilities: ['refunds', 'credits', 'passthroughQuotes'] },
    },
    links: {
      openapi: '/api/v1/openapi.json',
      capabilities: '/api/v1/capabilities',
    },
  },
  nextActions: [
    {
      rel: 'manifest',
      method: 'GET',
      href: '/api/v1/manifest',
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'capabilities',
      method: 'GET',
      href: '/api/v1/capabilities',
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'openapi',
      method: 'GET',
      href: '/api/v1/openapi.json',
      requiredScope: null,
      allowed: true,
    },
  ],
};

/** Discovery links to itself, then to where the typical flow starts (catalog, account, cart). */
const discoveryActions = [
  next('manifest', 'getManifest'),
  next('capabilities', 'getCapabilities'),
  next('openapi', 'getOpenApiDocument'),
  next('catalog', 'getCatalog'),
  next('createAccount', 'createAccount'),
  next('createCart', 'createCart'),
];

export function registerDiscoveryRoutes(app: TypedApp, deps: Deps, registry: RouteRegistry) {
  let documentJson: string | undefined;
  const openApiJson = () => {
    documentJson ??= JSON.stringify(app.swagger());
    return documentJson;
  };

  for (const url of OPENAPI_PATHS) {
    const isPrimary = url === OPENAPI_PATHS[0];
    app.get(
      url,
      {
        config: { public: url !== '/openapi.json', scope: null },
        schema: {
          operationId: isPrimary ? 'getOpenApiDocument' : 'getAgentToolsDocument',
          summary: isPrimary ? 'OpenAPI 3.1 document' : 'OpenAPI document for agent discovery',
          description:
            'The machine-readable contract of this API, generated from the live route schemas. ' +
            'No authentication; readable cross-origin. Start here to discover every operation, its scope and schemas.',
          tags: ['Discovery'],
          response: { 200: OpenApiDocumentSchema },
        },
      },
      async (_request, reply) => {
        allowAnyOrigin(reply);
        reply.header('Cache-Control', 'public, max-age=300');
        // Serialised once and sent as-is: a JSON string with a JSON content type skips the serializer.
        return reply
          .type('application/json; charset=utf-8')
          .send(openApiJson() as unknown as OpenApiDocument);
      },
    );
    app.options(url, { config: { public: false } }, async (_request, reply) => {
      allowAnyOrigin(reply);
      return reply.code(204).send();
    });
  }

  app.get(
    '/api/v1/manifest',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getManifest',
        summary: 'Service manifest for this key',
        description:
          'What this API key can do here: its tenant, environment, effective scopes and rate tier, the webhook ' +
          'event types (`capabilities.eventTypes`) and the billing system’s optional capabilities ' +
          '(`capabilities.billing`). Cacheable for 60 seconds.',
        tags: ['Discovery'],
        response: { 200: Envelope(ManifestSchema, 'The manifest for the calling key.', manifestExample) },
      },
    },
    async (request, reply) => {
      const ctx = requireCtx(request);
      const [tenant, adapter] = await Promise.all([
        getTenant(deps.db, ctx.tenantId),
        deps.billing.forTenant(deps.db, ctx.tenantId),
      ]);
      if (!tenant) throw new Error(`key ${ctx.keyId} belongs to a missing tenant`);
      cacheablePerKey(reply);
      return envelope(
        ctx,
        {
          service: { name: SERVICE_NAME, version: SERVICE_VERSION, apiVersion: 'v1' },
          environment: ctx.environment,
          tenant: { id: tenant.id, name: tenant.name },
          key: { id: ctx.keyId, scopes: ctx.scopes, rateTier: ctx.rateTier },
          capabilities: {
            eventTypes: EVENT_TYPE_NAMES,
            scopes: [...SCOPES],
            rateLimitTiers: RATE_LIMIT_TIERS,
            billing: { adapter: adapter?.name ?? null, capabilities: adapter ? capabilitiesOf(adapter) : [] },
          },
          links: { openapi: '/api/v1/openapi.json', capabilities: '/api/v1/capabilities' },
        },
        discoveryActions,
      );
    },
  );

  app.get(
    '/api/v1/capabilities',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getCapabilities',
        summary: 'Operations, event types and limits',
        description:
          'Every public operation with whether this key may call it, the webhook event types with a one-line ' +
          'description each, and the limits that apply (rate tiers, idempotency, body size). Cacheable for 60 seconds.',
        tags: ['Discovery'],
        response: { 200: Envelope(CapabilitiesSchema, 'Capabilities for the calling key.') },
      },
    },
    async (request, reply) => {
      const ctx = requireCtx(request);
      cacheablePerKey(reply);
      return envelope(ctx, keyCapabilities(ctx, registry, deps), discoveryActions);
    },
  );
}

/** What the calling key can do here: event types, operations with its permission, limits. */
function keyCapabilities(ctx: RequestContext, registry: RouteRegistry, deps: Deps) {
  return {
    eventTypes: EVENT_TYPE_NAMES,
    eventTypeDescriptions: EVENT_TYPES,
    operations: registry.publicOperations.map((op) => ({
      operationId: op.operationId,
      method: op.method,
      path: op.url,
      summary: op.summary,
      requiredScope: op.scope,
      allowed: hasScope(ctx.scopes, op.scope),
    })),
    limits: {
      rateLimitWindowSeconds: RATE_LIMIT_WINDOW_SECONDS,
      rateLimitTiers: RATE_LIMIT_TIERS,
      idempotencyKeyMaxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      idempotencyRetentionHours: IDEMPOTENCY_RETENTION_HOURS,
      maxRequestBodyBytes: deps.config.bodyLimitBytes,
    },
    environment: ctx.environment,
  };
}
