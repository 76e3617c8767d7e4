/**
 * Example responses of the typical flow (SPEC.md section 1), recorded from the real routes (ids
 * replaced by fixed ones), for the OpenAPI document: routes pass them to `Envelope(...)`, and
 * test/openapi-examples.test.ts checks each one against its response schema.
 */

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

/** Derived from the recorded ones: the same resources read back or changed as the body examples say. */
