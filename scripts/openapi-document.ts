/**
 * Writes the served OpenAPI document to a file, and (with --client) regenerates the typed
 * client's types and resource methods from it (scripts/client-resources.ts). The document comes from a real app (in-memory PGlite, fixed config),
 * exactly as `GET /api/v1/openapi.json` serves it.
 *
 *   npx tsx scripts/openapi-document.ts [out.json] [--client]
 *
 * CI runs `npm run -s client:generate` and fails when the committed files differ.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openPglite } from '../src/db/client.js';
import { createDeps } from '../src/deps.js';
import { type OpenApiDocument, resourcesModule } from './client-resources.js';

const args = process.argv.slice(2);
const client = args.includes('--client');
const root = path.resolve(import.meta.dirname, '..');
const clientDir = path.join(root, 'packages/client');
const out = path.resolve(
  args.find((a) => !a.startsWith('--')) ??
    path.join(os.tmpdir(), `commerce-agent-openapi-${process.pid}.json`),
);

// A fixed configuration: the document must not depend on the machine generating it.
const config = loadConfig({
  LOG_LEVEL: 'silent',
  APP_ENV: 'sandbox',
  PUBLIC_BASE_URL: 'http://localhost:3000',
  SEED_DEMO: 'false',
  WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
});
const database = await openPglite(undefined);
const app = await buildApp(createDeps(config, database, pino({ level: 'silent' })));
try {
  const res = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json -> ${res.statusCode}`);
  writeFileSync(out, `${JSON.stringify(res.json(), null, 2)}\n`);
  console.log(`wrote ${path.relative(root, out)}`);
} finally {
  await app.close();
  await database.close();
}

if (client) {
  // openapi-typescript 7 needs TypeScript 5's compiler API: the client workspace has both.
  const bin = path.join(clientDir, 'node_modules/.bin/openapi-typescript');
  execFileSync(bin, [out, '-o', path.join(clientDir, 'src/generated/api.ts')], { stdio: 'inherit' });
  const document = JSON.parse(readFileSync(out, 'utf8')) as OpenApiDocument;
  writeFileSync(path.join(clientDir, 'src/generated/resources.ts'), resourcesModule(document));
  console.log('wrote packages/client/src/generated/resources.ts');
}
