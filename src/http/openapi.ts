import swagger from '@fastify/swagger';
import type { Config } from '../config.js';
import { scopeSummaries, TYPICAL_FLOW, TYPICAL_FLOW_DESCRIPTION } from '../core/agent-guide.js';
import { addCodeSamples } from './code-samples.js';
import { NextActionSchema } from './envelope.js';
import { ErrorBodySchema, ErrorDetailSchema } from './errors.js';
import {
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_RETENTION_HOURS,
  RATE_LIMIT_TIERS,
  RATE_LIMIT_WINDOW_SECONDS,
} from './limits.js';
import { addCreateLinks, CREATED_AT_EXTENSION } from './openapi-links.js';
import { addResponseHeadersAndErrorExamples } from './openapi-responses.js';
import { addTagGroups } from './openapi-tags.js';
import { addSampledResponseExamples } from './sampled-examples.js';
import type { TypedApp } from './types.js';

export const SERVICE_NAME = 'Commerce Agent API';
export const SERVICE_VERSION = '0.1.0';

const DESCRIPTION = `Multi-tenant commerce API for integrations and AI agents.

Authenticate with \`Authorization: Bearer <api key>\`; the key names the tenant and its scopes
(\`read\` < \`commerce\` < \`admin\`; each operation states its scope in \`x-required-scope\`).
Resource responses are \`{ data, nextActions }\`: follow \`nextActions\` (each says whether your key
is \`allowed\`) rather than building URLs. Errors are \`{ error, code, details?, requestId }\` with a
stable \`code\`. Writes accept an \`Idempotency-Key\` header. Every response carries
\`X-Request-Id\` and \`X-RateLimit-*\` headers.

## Getting started

The walkthrough, \`docs/getting-started.md\` in the repository, runs the typical flow step by step
in curl and in the TypeScript client (\`@commerce-agent/client\`), each step with its real response.
In short, with the key the server printed at start (\`npm run dev\`):

1. \`GET /api/v1/manifest\`: what the key may do.
2. \`GET /api/v1/catalog\`: the products and their prices.
3. \`POST /api/v1/accounts\`: the customer.
4. \`POST /api/v1/carts\`, then \`POST /api/v1/carts/{id}/items\`: the purchase.
5. \`POST /api/v1/orders\` with the \`cartId\`: the order and its invoice.
6. \`POST /api/v1/invoices/{id}/pay\`, then \`POST /api/v1/payments/{id}/complete\`: paid.

Each response's \`nextActions\` names the next call. Every operation below shows it in curl and in
TypeScript; "Test Request" sends it from this page with your key. Agents can use the same
operations as MCP tools at \`/mcp\`.`;

/** Shared schemas, registered once and referenced by `$ref` from routes and the document. */
export const SHARED_SCHEMAS = [ErrorDetailSchema, ErrorBodySchema, NextActionSchema];

/**
 * `x-agent`: what an agent needs before its first call, in one place at the top of the document
 * (the MCP endpoint, how to authenticate, what each scope allows, rate tiers, idempotency rules,
 * the typical flow).
 */
export function agentInfo(config: Pick<Config, 'publicBaseUrl'>) {
  return {
    mcp: {
      url: `${config.publicBaseUrl.replace(/\/$/, '')}/mcp`,
      transport: 'streamable-http',
      description:
        'Model Context Protocol server (stateless Streamable HTTP, JSON responses). One tool per operationId of this ' +
        'document (except the two that return this document), listed only when the key may call it. A tool takes ' +
        'flat arguments: path, query and body fields at the top level (a body field named like a path or query ' +
        'parameter is `body_<name>`), plus `idempotencyKey` on writes; unknown arguments are refused before ' +
        'anything runs. A call runs the REST operation and returns its `{ data, nextActions }` envelope as ' +
        'structured content (each tool declares its output schema), or `isError` with the error body. ' +
        'Resources: `commerce://catalog`, `commerce://openapi.json`.',
    },
    auth: {
      scheme: 'bearer',
      header: 'Authorization',
      format: 'Bearer cak_live_<secret> (production) or Bearer cak_test_<secret> (sandbox)',
      description:
        'The key names the tenant, its scopes and its rate tier. Keys are environment-specific. The discovery ' +
        'documents need no key. 401 `unauthorized`: missing, malformed, unknown or revoked key; 403 `forbidden`: ' +
        'the key lacks the scope in `x-required-scope`.',
    },
    // Filled from the operations when the document is built (`withScopeSummaries`).
    scopes: {},
    scopeOrder: ['read', 'commerce', 'admin'],
    rateLimits: {
      windowSeconds: RATE_LIMIT_WINDOW_SECONDS,
      tiers: RATE_LIMIT_TIERS,
      description:
        'Requests per rolling window, per key (per client IP without a valid key). Every response carries ' +
        '`X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`; over the limit the answer is 429 ' +
        '`rate_limited` with `Retry-After` (seconds). An MCP tool call counts once: its request to /mcp.',
    },
    idempotency: {
      header: 'Idempotency-Key',
      methods: ['POST', 'PUT', 'PATCH'],
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      retentionHours: IDEMPOTENCY_RETENTION_HOURS,
      replayHeader: 'X-Idempotency-Replayed',
      description:
        'The same key, method, path and body within the retention window returns the stored response with ' +
        '`X-Idempotency-Replayed: true` without running the operation again. The same key with a different body is ' +
        '422 `idempotency_conflict`; while the first request runs, a duplicate is 409 `idempotency_in_flight`. ' +
        '400 and 5xx answers are not stored, so a retry runs again.',
    },
    typicalFlow: TYPICAL_FLOW,
    typicalFlowDescription: TYPICAL_FLOW_DESCRIPTION,
  };
}

/** `x-agent.scopes`, read off the document's own operations. */
function withScopeSummaries<T extends { paths?: unknown }>(document: T): T {
  const agent = (document as { 'x-agent'?: { scopes?: unknown } })['x-agent'];
  if (agent) agent.scopes = scopeSummaries((document.paths ?? {}) as Parameters<typeof scopeSummaries>[0]);
  return document;
}

/**
 * What the route schemas cannot say, added to the generated document: response examples, create
 * links, scope summaries, response headers and error examples, tags in flow order with their
 * groups, and curl and TypeScript samples (the last, as they read the request examples).
 */
function finishDocument<T extends object>(document: T, app: TypedApp): T {
  const withExamples = addSampledResponseExamples(document, app.completeActions);
  const finished = addTagGroups(addResponseHeadersAndErrorExamples(addCreateLinks(withExamples)));
  return addCodeSamples(withScopeSummaries(finished));
}

/** Generates the OpenAPI 3.1 document from the route schemas; internal routes are hidden. */
export async function registerOpenApi(app: TypedApp, config: Config) {
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: SERVICE_NAME, version: SERVICE_VERSION, description: DESCRIPTION },
      servers: [{ url: config.publicBaseUrl, description: `${config.appEnv} environment` }],
      // An OpenAPI extension: @fastify/swagger copies `x-` keys to the document's top level.
      ...({ 'x-agent': agentInfo(config) } as object),
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'API key: cak_live_... or cak_test_...' },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transformObject: (document) =>
      'openapiObject' in document ? finishDocument(document.openapiObject, app) : document.swaggerObject,
    transform: ({ schema, url, route }) => {
      const config = route.config ?? {};
      if (!config.public) return { schema: { ...schema, hide: true }, url };
      const scope = config.scope ?? null;
      return {
        url,
        schema: {
          ...schema,
          ...(scope ? { security: [{ apiKey: [] }] } : { security: [] }),
          'x-required-scope': scope,
          ...(config.createdAt ? { [CREATED_AT_EXTENSION]: config.createdAt } : {}),
        } as typeof schema,
      };
    },
  });
}
