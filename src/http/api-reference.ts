import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { notFound } from '../core/errors.js';
import { SERVICE_NAME } from './openapi.js';
import type { TypedApp } from './types.js';

/**
 * `GET /docs`: the interactive API reference (Swagger UI), rendered in the browser from the
 * served OpenAPI document. The renderer's files come from the `swagger-ui-dist` package and are
 * served here, so the page needs no CDN. No authentication; an internal route (not in OpenAPI).
 */

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

// The page's own script is a file, not inline, so a strict Content-Security-Policy can allow it.
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/v1/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayOperationId: true,
    displayRequestDuration: true,
    filter: true,
    persistAuthorization: false,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${SERVICE_NAME} — API reference</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <style>body { margin: 0; } .intro { font-family: sans-serif; padding: 12px 20px 0; color: #3b4151; }</style>
</head>
<body>
  <p class="intro">Machine-readable contract: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>
  (also <a href="/.well-known/agent-tools.json">/.well-known/agent-tools.json</a>). MCP endpoint: <code>/mcp</code>.</p>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>
`;

function loadAssets(): Map<string, { type: string; body: Buffer }> {
  const root = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map<string, { type: string; body: Buffer }>();
  for (const [name, type] of Object.entries(ASSETS)) {
    files.set(name, { type, body: readFileSync(join(root, name)) });
  }
  files.set('init.js', { type: 'application/javascript; charset=utf-8', body: Buffer.from(INIT_SCRIPT) });
  return files;
}

export function registerApiReference(app: TypedApp) {
  let assets: Map<string, { type: string; body: Buffer }> | undefined;
  const config = { public: false, scope: null } as const;

  app.get('/docs', { config }, async (_request, reply) => {
    reply.header('Cache-Control', 'public, max-age=300');
    return reply.type('text/html; charset=utf-8').send(PAGE);
  });

  app.get<{ Params: { file: string } }>('/docs/assets/:file', { config }, async (request, reply) => {
    assets ??= loadAssets();
    const asset = assets.get(request.params.file);
    if (!asset) throw notFound(`Asset ${request.params.file}`);
    reply.header('Cache-Control', 'public, max-age=86400');
    return reply.type(asset.type).send(asset.body);
  });
}
