import { Type } from 'typebox';
import { SCOPES } from '../core/scopes.js';
import type { TypedApp } from './types.js';

/**
 * How a client (an MCP host probing for OAuth, a person with curl) learns to authenticate:
 * - `GET /.well-known/oauth-protected-resource` (RFC 9728): this API takes a bearer API key in
 *   the Authorization header; there is no OAuth authorization server to send anyone to.
 * - every 401 carries `WWW-Authenticate: Bearer ..., resource_metadata="<that URL>"` (RFC 6750,
 *   RFC 9728 section 5.1), so a host that gets one from `/mcp` finds the answer.
 * - `GET /`: a small index of where everything is.
 */

declare module 'fastify' {
  interface FastifyInstance {
    /** The `WWW-Authenticate` value of a 401. */
    authChallenge?: string;
  }
}

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

const Metadata = Type.Object({
  resource: Type.String(),
  authorization_servers: Type.Array(Type.String()),
  bearer_methods_supported: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
  resource_name: Type.String(),
  resource_documentation: Type.String(),
  'x-api-key': Type.Object({
    format: Type.String(),
    header: Type.String(),
    howToGet: Type.String(),
  }),
});

const Index = Type.Object({
  name: Type.String(),
  api: Type.String(),
  openapi: Type.String(),
  agentTools: Type.String(),
  manifest: Type.String(),
  docs: Type.String(),
  mcp: Type.String(),
  oauthProtectedResource: Type.String(),
  authentication: Type.String(),
});

export function registerProtectedResource(app: TypedApp, options: { publicBaseUrl: string; name: string }) {
  const base = options.publicBaseUrl;
  const metadataUrl = `${base}${PROTECTED_RESOURCE_PATH}`;
  const challenge = `Bearer realm="commerce-agent-api", resource_metadata="${metadataUrl}"`;

  // Every 401 leaves through sendError, which adds this (no hook on every response).
  app.decorate('authChallenge', challenge);

  app.get(
    PROTECTED_RESOURCE_PATH,
    { config: { public: false, scope: null }, schema: { response: { 200: Metadata } } },
    async (_request, reply) => {
      reply.header('Access-Control-Allow-Origin', '*');
      return {
        resource: base,
        // API keys, not OAuth: no authorization server issues tokens for this resource.
        authorization_servers: [],
        bearer_methods_supported: ['header'],
        scopes_supported: [...SCOPES],
        resource_name: options.name,
        resource_documentation: `${base}/docs`,
        'x-api-key': {
          format: 'cak_live_<32 characters> or cak_test_<32 characters>',
          header: 'Authorization: Bearer <api key>',
          howToGet:
            'An operator issues keys (npm run cli -- keys issue, or POST /api/v1/admin/api-keys with an admin key); the embedded demo prints three at its first start.',
        },
      };
    },
  );

  app.get(
    '/',
    { config: { public: false, scope: null }, schema: { response: { 200: Index } } },
    async () => ({
      name: options.name,
      api: `${base}/api/v1`,
      openapi: `${base}/api/v1/openapi.json`,
      agentTools: `${base}/.well-known/agent-tools.json`,
      manifest: `${base}/api/v1/manifest`,
      docs: `${base}/docs`,
      mcp: `${base}/mcp`,
      oauthProtectedResource: metadataUrl,
      authentication:
        'Authorization: Bearer <api key> (cak_live_... or cak_test_...); scopes read, commerce, admin',
    }),
  );
}
