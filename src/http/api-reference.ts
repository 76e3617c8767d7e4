import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { notFound } from '../core/errors.js';
import { SERVICE_NAME } from './openapi.js';
import { type Asset, asset, IMMUTABLE, sendAsset } from './static-asset.js';
import type { TypedApp } from './types.js';

/**
 * `GET /docs`: the interactive API reference (Scalar), rendered in the browser from the served
 * OpenAPI document, with "Test Request" (try-it) against this server. Scalar's standalone browser
 * bundle comes from the `@scalar/api-reference` package and is served here, so the page needs no
 * CDN; its web fonts, telemetry, agent chat and "Open API Client" button (which would reach
 * scalar.com) are turned off.
 *
 * The page and its files are static: they are outside the rate limit (a page load is not an API
 * call), served compressed from copies made once, and cached: the files' names carry a hash of
 * their content (`immutable` for a year), the page revalidates with its ETag. No authentication;
 * internal routes (not in OpenAPI).
 */

const JS = 'application/javascript; charset=utf-8';

// The page's own script is a file, not inline, so a strict Content-Security-Policy can allow it.
// Try-it calls the server that serves the page (the document's `servers` entry is the configured
// public URL, which a local run on another port or host does not answer).
const INIT_SCRIPT = `Scalar.createApiReference('#reference', {
  url: '/api/v1/openapi.json',
  servers: [{ url: window.location.origin, description: 'This server' }],
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: 'never',
  hideClientButton: true,
  persistAuth: false,
  authentication: { preferredSecurityScheme: 'apiKey' },
  documentDownloadType: 'json',
  defaultOpenAllTags: false,
  hiddenClients: true,
  defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
});
`;

/** The files under `/docs/assets/`, by hashed name, and the page that names them. */
function buildReference() {
  const bundlePath = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');
  const files = new Map<string, Asset>();
  const add = (name: string, ext: string, file: Asset) => {
    const hashed = `${name}.${file.etag.slice(1, 13)}.${ext}`;
    files.set(hashed, file);
    return `/docs/assets/${hashed}`;
  };
  const bundle = add('scalar', 'js', asset(JS, readFileSync(bundlePath)));
  const init = add('init', 'js', asset(JS, Buffer.from(INIT_SCRIPT)));
  const html = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${SERVICE_NAME}: API reference</title>
  <link rel="icon" href="data:,">
</head>
<body>
  <div id="reference"></div>
  <script src="${bundle}"></script>
  <script src="${init}"></script>
</body>
</html>
`;
  return { files, page: asset('text/html; charset=utf-8', Buffer.from(html)) };
}

export function registerApiReference(app: TypedApp) {
  let reference: ReturnType<typeof buildReference> | undefined;
  // Static files: no key, no rate limit; compressed here once rather than by @fastify/compress.
  const options = { config: { public: false, scope: null, rateLimit: false }, compress: false } as const;

  app.get('/docs', options, async (request, reply) => {
    reference ??= buildReference();
    return sendAsset(request, reply, reference.page, 'no-cache');
  });

  app.get<{ Params: { file: string } }>('/docs/assets/:file', options, async (request, reply) => {
    reference ??= buildReference();
    const file = reference.files.get(request.params.file);
    if (!file) throw notFound(`Asset ${request.params.file}`);
    return sendAsset(request, reply, file, IMMUTABLE);
  });
}
