import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { type Clock, systemClock } from '../clock.js';
import type { AppEnv } from '../config.js';
import { SCOPES, type Scope } from '../core/scopes.js';
import type { Db } from '../db/client.js';
import { issueApiKey } from '../modules/api-keys/index.js';
import {
  createDemoOwner,
  createDemoOwnerIfNoUsers,
  DEMO_OWNER_EMAIL,
  demoOwnerSignInLink,
} from '../modules/team/index.js';
import { createTenant, getTenant, hasAnyTenant } from '../modules/tenants/index.js';
import { readSeedFile, seedCatalog } from './catalog.js';
import { seedDemoBilling } from './demo-billing.js';

export const DEMO_KEYS_FILE = 'demo-keys.json';
/** The demo tenant's catalog, rules, promotions, policy and shipping options. */
export const DEMO_CATALOG = fileURLToPath(new URL('../../examples/demo-catalog.yaml', import.meta.url));
// Serialises the "is the database empty?" check across instances starting together.
const SEED_LOCK_ID = 7_242_020;

export interface DemoSeed {
  tenantId: string;
  /** The demo's local account, linked to its billing account. */
  accountId: string;
  billingAccountId: string;
  keys: Record<Scope, string>;
  file: string;
}

/**
 * On an empty database: creates the demo tenant with one key per scope and its catalog
 * (examples/demo-catalog.yaml), in one transaction, and writes the keys to
 * `<dataDir>/demo-keys.json` (mode 0600). Returns undefined when the database already has data,
 * so the keys are shown exactly once.
 */
export async function seedDemoIfEmpty(
  db: Db,
  environment: AppEnv,
  dataDir: string,
  clock: Clock = systemClock,
): Promise<DemoSeed | undefined> {
  const seeded = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_ID})`);
    if (await hasAnyTenant(tx)) return undefined;
    const tenant = await createTenant(tx, 'Demo tenant');
    await createDemoOwner(tx, tenant.id, clock.now());
    const keys = {} as Record<Scope, string>;
    for (const scope of SCOPES) {
      const { secret } = await issueApiKey(tx, tenant.id, {
        name: `demo ${scope} key`,
        scopes: [scope],
        rateTier: 'premium',
        environment,
      });
      keys[scope] = secret;
    }
    await seedCatalog(tx, tenant.id, readSeedFile(DEMO_CATALOG));
    const billing = await seedDemoBilling(tx, tenant.id, clock);
    return { tenantId: tenant.id, keys, ...billing };
  });
  if (!seeded) return undefined;
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, DEMO_KEYS_FILE);
  fs.writeFileSync(file, `${JSON.stringify({ environment, ...seeded }, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return { ...seeded, file };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The demo tenant's id, from the keys file its seeding wrote; undefined without a readable one. */
function demoTenantId(dataDir: string): string | undefined {
  try {
    const saved = JSON.parse(fs.readFileSync(path.join(dataDir, DEMO_KEYS_FILE), 'utf8')) as {
      tenantId?: unknown;
    };
    return typeof saved.tenantId === 'string' && UUID.test(saved.tenantId) ? saved.tenantId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A database seeded before console users existed has a demo tenant without any: its first owner
 * is created, as a fresh seed does. The demo tenant is the one `<dataDir>/demo-keys.json` names;
 * no other tenant, and none that has a console user already, ever gets one. True when created.
 */
export async function ensureDemoOwner(db: Db, dataDir: string, clock: Clock = systemClock): Promise<boolean> {
  const tenantId = demoTenantId(dataDir);
  if (!tenantId) return false;
  return db.transaction(async (tx) => {
    // One instance at a time, as the seeding itself.
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_ID})`);
    if (!(await getTenant(tx, tenantId))) return false;
    return createDemoOwnerIfNoUsers(tx, tenantId, clock.now());
  });
}

/**
 * What a start with the demo prints for the console: the demo owner's one-time sign-in link while
 * it has never signed in, the owner created first when the demo tenant has no console user.
 */
export async function demoConsoleStart(
  db: Db,
  dataDir: string,
  baseUrl: string,
  clock: Clock = systemClock,
): Promise<string> {
  await ensureDemoOwner(db, dataDir, clock);
  return formatConsoleLink(await demoOwnerSignInLink(db, baseUrl, clock.now()));
}

/** The demo owner's one-time console sign-in link, while it has never signed in. */
export function formatConsoleLink(link: { url: string } | undefined): string {
  if (!link) return '';
  return [
    '',
    `  Console sign-in (${DEMO_OWNER_EMAIL}, one-time, a fresh link at each start until used):`,
    `    ${link.url}`,
  ].join('\n');
}

export function formatDemoBanner(seed: DemoSeed, baseUrl: string): string {
  return [
    '',
    '  Demo tenant created. These API keys are shown once (also saved, owner-only, to:',
    `  ${seed.file})`,
    '',
    ...SCOPES.map((scope) => `    ${scope.padEnd(9)} ${seed.keys[scope]}`),
    '',
    `  Try: curl -H "Authorization: Bearer ${seed.keys.read}" ${baseUrl}/api/v1/manifest`,
    `       curl -H "Authorization: Bearer ${seed.keys.read}" ${baseUrl}/api/v1/catalog`,
    `       curl -H "Authorization: Bearer ${seed.keys.read}" ${baseUrl}/api/v1/accounts/${seed.accountId}/invoices`,
    `  Demo catalog (products, price rules, offers, promo code WELCOME10, a policy, shipping):`,
    `  ${path.relative(process.cwd(), DEMO_CATALOG) || DEMO_CATALOG}`,
    formatStartLinks(baseUrl),
  ].join('\n');
}

/** Where a newcomer goes next: printed at every start (after the demo keys on the first). */
export function formatStartLinks(baseUrl: string): string {
  return [
    '',
    `  Commerce Agent API on ${baseUrl}`,
    `    API reference      ${baseUrl}/docs   (OpenAPI: ${baseUrl}/api/v1/openapi.json)`,
    `    MCP server         ${baseUrl}/mcp   (Streamable HTTP, Bearer API key)`,
    `    Manifest           ${baseUrl}/api/v1/manifest   (what your key can do)`,
    '    Walkthrough        docs/getting-started.md',
    '    Local webhooks     npm run cli -- webhooks listen --forward-to http://localhost:3001/hook',
    '',
  ].join('\n');
}
