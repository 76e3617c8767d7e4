import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, notFound } from '../core/errors.js';
import { type Asset, asset, IMMUTABLE, sendAsset } from './static-asset.js';
import type { TypedApp } from './types.js';

/**
 * `/console/`: the web console (`console/`, a React app built by Vite into `dist/console/` by
 * `npm run build`), served by this server so there is nothing else to run. It talks to the same
 * API with the console session cookie. Static files: no key, outside the rate limit, read once
 * with their compressed copies; Vite's hashed files under `assets/` are `immutable`, the page
 * (and the few unhashed files) revalidate. Not built: 503 saying how to build it.
 */

export const CONSOLE_DIR = fileURLToPath(new URL('../../dist/console/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

// The app's own files only; Mantine sets inline style attributes, hence 'unsafe-inline' for styles.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** The built console's files by URL path below `/console/`, or null when it is not built. */
function loadConsole(dir: string): Map<string, Asset> | null {
  if (!existsSync(join(dir, 'index.html'))) return null;
  const files = new Map<string, Asset>();
  for (const path of filesUnder(dir)) {
    const type = TYPES[extname(path)] ?? 'application/octet-stream';
    files.set(relative(dir, path).split(sep).join('/'), asset(type, readFileSync(path)));
  }
  return files;
}

const notBuilt = () =>
  new AppError(
    'service_unavailable',
    'The console is not built: run `npm run build` (it builds the console into dist/console/), then restart',
  );

export function registerConsoleAssets(app: TypedApp, dir = CONSOLE_DIR) {
  let files: Map<string, Asset> | null = null;
  const built = () => {
    // Read once built; until then looked for again on each request (a build after the start).
    files ??= loadConsole(dir);
    if (!files) throw notBuilt();
    return files;
  };
  const options = { config: { public: false, scope: null, rateLimit: false }, compress: false } as const;

  const sendPage = (request: FastifyRequest, reply: FastifyReply) => {
    const page = built().get('index.html') as Asset;
    reply.header('Content-Security-Policy', CSP).header('X-Frame-Options', 'DENY');
    return sendAsset(request, reply, page, 'no-cache');
  };
  app.get('/console', options, sendPage);

  app.get<{ Params: { '*': string } }>('/console/*', options, async (request, reply) => {
    const path = request.params['*'];
    if (path === '' || path === 'index.html') return sendPage(request, reply);
    const file = built().get(path);
    if (!file) throw notFound(`Console file ${path}`);
    return sendAsset(request, reply, file, path.startsWith('assets/') ? IMMUTABLE : 'no-cache');
  });
}
