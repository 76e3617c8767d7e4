import { ResourceNotFoundError, type Server } from '@modelcontextprotocol/server';
import { OUTPUT_SCHEMA_URI_TEMPLATE, toolOfOutputSchemaUri } from './output-schemas.js';
import type { ToolDefinition } from './tools.js';

/** Read-only resources: what a GET route answers, read through that route for the request's key. */
export const MCP_RESOURCES = [
  {
    uri: 'commerce://catalog',
    name: 'catalog',
    title: 'Product catalog',
    description: 'The active products of the key’s tenant, as GET /api/v1/catalog returns them (read scope).',
    mimeType: 'application/json',
    path: '/api/v1/catalog',
  },
  {
    uri: 'commerce://openapi.json',
    name: 'openapi',
    title: 'OpenAPI document',
    description: 'The OpenAPI 3.1 document every tool is generated from (GET /api/v1/openapi.json).',
    mimeType: 'application/json',
    path: '/api/v1/openapi.json',
  },
] as const;

/** Each tool's whole output schema, one resource per tool (tools/list carries its top level). */
export const OUTPUT_SCHEMA_TEMPLATE = {
  uriTemplate: OUTPUT_SCHEMA_URI_TEMPLATE,
  name: 'output-schema',
  title: 'Tool output schema',
  description: 'The whole JSON Schema of a tool’s result (the route’s response); {name} is the tool’s name.',
  mimeType: 'application/schema+json',
};

/**
 * The resource handlers of one request's server: the listed resources, the output schema
 * template, and reading either. `visibleTools` are the tools the request's key lists: a key reads
 * only their schemas, the others' being no more its business than the tools. An unknown URI is
 * the protocol's resource-not-found error (-32602).
 */
export function serveResources(
  server: Server,
  visibleTools: () => readonly ToolDefinition[],
  readRoute: (path: string) => Promise<unknown>,
) {
  server.setRequestHandler('resources/list', async () => ({
    resources: MCP_RESOURCES.map(({ path: _path, ...r }) => r),
  }));
  server.setRequestHandler('resources/templates/list', async () => ({
    resourceTemplates: [OUTPUT_SCHEMA_TEMPLATE],
  }));
  server.setRequestHandler('resources/read', async (req) => {
    const { uri } = req.params;
    const schemaOf = toolOfOutputSchemaUri(uri);
    if (schemaOf !== undefined) {
      const tool = visibleTools().find((t) => t.name === schemaOf);
      if (!tool) throw new ResourceNotFoundError(uri);
      const text = JSON.stringify(tool.wholeOutputSchema);
      return { contents: [{ uri, mimeType: OUTPUT_SCHEMA_TEMPLATE.mimeType, text }] };
    }
    const resource = MCP_RESOURCES.find((r) => r.uri === uri);
    if (!resource) throw new ResourceNotFoundError(uri);
    const text = JSON.stringify(await readRoute(resource.path));
    return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text }] };
  });
}
