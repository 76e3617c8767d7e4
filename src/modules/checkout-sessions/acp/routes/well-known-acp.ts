import { defineRoute } from '../../../../http/declared-route.js';
import { ACP_DISCOVERY_MAX_AGE_SECONDS, AcpDiscoverySchema, acpDiscovery } from '../well-known.js';
import { TAGS } from './shared.js';

export const acpDiscoveryRoute = defineRoute({
  method: 'GET',
  path: '/.well-known/acp.json',
  prefix: '',
  public: false,
  operationId: 'acpDiscovery',
  summary: 'ACP discovery document',
  description:
    'Whether and where this deployment speaks ACP (rfc.discovery.md): the versions, the REST base ' +
    'URL, the transports (REST, and MCP at /mcp) and the services (checkout, delegate_payment). ' +
    'No key needed; cacheable for an hour.',
  tags: TAGS,
  scope: null,
  responses: { 200: AcpDiscoverySchema },
  handler: async (_request, reply, deps) => {
    reply.header('Cache-Control', `public, max-age=${ACP_DISCOVERY_MAX_AGE_SECONDS}`);
    return acpDiscovery(deps.config.publicBaseUrl);
  },
});
