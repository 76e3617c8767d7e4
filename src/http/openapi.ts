import swagger from '@fastify/swagger';
import type { Config } from '../config.js';
import { NextActionSchema } from './envelope.js';
import { ErrorBodySchema, ErrorDetailSchema } from './errors.js';
import type { TypedApp } from './types.js';

export const SERVICE_NAME = 'Commerce Agent API';
export const SERVICE_VERSION = '0.1.0';

const DESCRIPTION = `Multi-tenant commerce API for integrations and AI agents.

Authenticate with \`Authorization: Bearer <api key>\`; the key names the tenant and its scopes
(\`read\` < \`commerce\` < \`admin\`; each operation states its scope in \`x-required-scope\`).
Resource responses are \`{ data, nextActions }\`: follow \`nextActions\` (each says whether your key
is \`allowed\`) rather than building URLs. Errors are \`{ error, code, details?, requestId }\` with a
stable \`code\`. Writes accept an \`Idempotency-Key\` header. Every response carries
\`X-Request-Id\` and \`X-RateLimit-*\` headers.`;

/** Shared schemas, registered once and referenced by `$ref` from routes and the document. */
export const SHARED_SCHEMAS = [ErrorDetailSchema, ErrorBodySchema, NextActionSchema];

/** Generates the OpenAPI 3.1 document from the route schemas; internal routes are hidden. */
export async function registerOpenApi(app: TypedApp, config: Config) {
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: SERVICE_NAME, version: SERVICE_VERSION, description: DESCRIPTION },
      servers: [{ url: config.publicBaseUrl, description: `${config.appEnv} environment` }],
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
        } as typeof schema,
      };
    },
  });
}
