import { Type } from 'typebox';
import { DISCOUNT_EXTENSION } from './capabilities.js';
import { ACP_SUPPORTED_VERSIONS, ACP_VERSION } from './schema-parts.js';

// GET /.well-known/acp.json (rfc.discovery.md): whether and where we speak ACP, before any key.
// Seller-wide and stable: no merchant id, no payment handler (those are per session).

export const ACP_DISCOVERY_MAX_AGE_SECONDS = 3600;

export const AcpDiscoverySchema = Type.Object(
  {
    protocol: Type.Object({
      name: Type.Literal('acp'),
      version: Type.String({ description: 'The latest version we answer.' }),
      supported_versions: Type.Array(Type.String(), { description: 'Oldest first; the last is `version`.' }),
      documentation_url: Type.Optional(Type.String()),
    }),
    api_base_url: Type.String({ description: 'Where the checkout and delegate_payment paths are.' }),
    transports: Type.Array(Type.String(), {
      description: '`rest` at api_base_url; `mcp` at /mcp of the same origin (JSON-RPC tools).',
    }),
    capabilities: Type.Object({
      services: Type.Array(Type.String()),
      extensions: Type.Array(Type.Object({ name: Type.String() })),
    }),
  },
  {
    examples: [
      {
        protocol: { name: 'acp', version: ACP_VERSION, supported_versions: [ACP_VERSION] },
        api_base_url: 'https://api.example.com/api/v1',
        transports: ['rest', 'mcp'],
        capabilities: {
          services: ['checkout', 'delegate_payment'],
          extensions: [{ name: 'discount' }],
        },
      },
    ],
  },
);

/**
 * No `intervention_types` (we run none) and no `supported_currencies` (each tenant prices in its
 * own): both are optional and would be wrong for some tenant of this deployment.
 */
export function acpDiscovery(publicBaseUrl: string) {
  const base = publicBaseUrl.replace(/\/$/, '');
  return {
    protocol: { name: 'acp' as const, version: ACP_VERSION, supported_versions: [...ACP_SUPPORTED_VERSIONS] },
    api_base_url: `${base}/api/v1`,
    transports: ['rest', 'mcp'],
    capabilities: {
      services: ['checkout', 'delegate_payment'],
      extensions: [{ name: DISCOUNT_EXTENSION.name }],
    },
  };
}
