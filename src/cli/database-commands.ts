import { type AppEnv, type Config, loadConfig } from '../config.js';
import { RATE_TIERS, type RateTier } from '../core/context.js';
import { loadKeyRing } from '../core/key-ring.js';
import { isScope, type Scope } from '../core/scopes.js';
import type { Database } from '../db/client.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { resealSecrets } from '../db/sealing.js';
import { createLogger, openConfiguredDatabase } from '../deps.js';
import { issueApiKey, listApiKeys, redisRevocationBus, revokeApiKey } from '../modules/api-keys/index.js';
import { createTenant, getTenant, listTenants } from '../modules/tenants/index.js';
import { TABLE_LAYOUT } from '../schema.js';
import { readSeedFile, seedCatalog } from '../seed/catalog.js';
import { formatDemoBanner, seedDemoIfEmpty } from '../seed/demo.js';
import { exportAcpFeed } from './feeds.js';
import { runThroughApi } from './keys-over-api.js';
import { heldByServerMessage, readServerFile } from './server-file.js';
import { API_CAPABLE, CliError, type Options, optional, UsageError } from './usage.js';

// The commands that open the database (loaded only when one of them runs).

export type Print = (value: unknown, text: string) => void;

function parseScopes(raw: string): Scope[] {
  const scopes = raw.split(',').map((s) => s.trim());
  const bad = scopes.filter((s) => !isScope(s));
  if (bad.length > 0 || scopes.length === 0)
    throw new UsageError(`--scopes must list read, commerce or admin (got ${raw})`);
  return scopes as Scope[];
}

function parseTier(raw: string | undefined): RateTier {
  if (raw === undefined) return 'standard';
  if (!(RATE_TIERS as readonly string[]).includes(raw))
    throw new UsageError(`--tier must be one of ${RATE_TIERS.join(', ')}`);
  return raw as RateTier;
}

function parseEnv(raw: string | undefined, fallback: AppEnv): AppEnv {
  if (raw === undefined) return fallback;
  if (raw !== 'sandbox' && raw !== 'production') throw new UsageError('--env must be sandbox or production');
  return raw;
}

async function requireTenant(database: Database, id: string) {
  const tenant = /^[0-9a-f-]{36}$/i.test(id) ? await getTenant(database.db, id) : undefined;
  if (!tenant) throw new CliError(`Tenant ${id} not found (\`commerce-agent tenants list\` lists them)`);
  return tenant;
}

/** Tells running instances (over Redis) to stop accepting the key now, not when their cache expires. */
async function announceRevocation(redisUrl: string, keyId: string) {
  const bus = redisRevocationBus(redisUrl, createLogger({ logLevel: 'warn' }), () => {});
  await bus.publish(keyId);
  await bus.close();
}

/** What is wrong with the command line that the database is not needed to tell. */
function checkOptions(key: string, opts: Options) {
  if (key === 'keys issue') {
    parseScopes(opts.scopes as string);
    parseTier(optional(opts, 'tier'));
    parseEnv(optional(opts, 'env'), 'sandbox');
  }
}

/** The embedded database is taken: by a running server, said with what to do instead. */
function lockedError(config: Config, err: DataDirLockedError): CliError {
  const server = readServerFile(config.dataDir);
  return new CliError(server ? heldByServerMessage(config.dataDir, server) : err.message);
}

export async function runDatabaseCommand(
  key: string,
  positionals: readonly string[],
  opts: Options,
  print: Print,
): Promise<void> {
  checkOptions(key, opts);
  const config = loadConfig();
  let database: Database;
  try {
    database = await openConfiguredDatabase(config, createLogger({ logLevel: 'warn' }));
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    // Beside the running embedded server: what its API can do goes through it.
    if (API_CAPABLE.has(key) && readServerFile(config.dataDir)) return runThroughApi(key, opts, print);
    throw lockedError(config, err);
  }
  try {
    await database.migrate(TABLE_LAYOUT);
    await runOn(database, config, key, positionals, opts, print);
  } finally {
    await database.close();
  }
}

const counts = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ') || 'nothing';

async function runOn(
  database: Database,
  config: Config,
  key: string,
  positionals: readonly string[],
  opts: Options,
  print: Print,
): Promise<void> {
  const tenantOpt = () => requireTenant(database, opts.tenant as string);
  switch (key) {
    case 'migrate':
      return print({ migrated: true }, 'Migrations applied.');
    case 'seed': {
      const tenant = await tenantOpt();
      const report = await seedCatalog(database.db, tenant.id, readSeedFile(positionals[1] as string));
      return print(
        report,
        `Seeded tenant ${tenant.id}: created ${counts(report.created)}; updated ${counts(report.updated)}.`,
      );
    }
    case 'seed-demo': {
      const seed = await seedDemoIfEmpty(database.db, config.appEnv, config.dataDir);
      if (!seed) return print({ seeded: false }, 'The database already has tenants; nothing seeded.');
      return print({ seeded: true, ...seed }, formatDemoBanner(seed, config.publicBaseUrl));
    }
    case 'tenants create': {
      const tenant = await createTenant(database.db, opts.name as string);
      return print(tenant, `Created tenant ${tenant.id} (${tenant.name})`);
    }
    case 'tenants list': {
      const tenants = await listTenants(database.db);
      return print(tenants, tenants.map((t) => `${t.id}  ${t.name}`).join('\n') || 'No tenants.');
    }
    case 'keys issue': {
      const tenant = await tenantOpt();
      const scopes = parseScopes(opts.scopes as string);
      const { apiKey, secret } = await issueApiKey(database.db, tenant.id, {
        name: optional(opts, 'name') ?? `${scopes.join('+')} key`,
        scopes,
        rateTier: parseTier(optional(opts, 'tier')),
        environment: parseEnv(optional(opts, 'env'), config.appEnv),
      });
      return print(
        { ...apiKey, key: secret },
        `Issued ${apiKey.environment} key ${apiKey.id} [${apiKey.scopes.join(', ')}; ${apiKey.rateTier}]\n${secret}\n(shown once)`,
      );
    }
    case 'keys list': {
      const tenant = await tenantOpt();
      const keys = await listApiKeys(database.db, tenant.id);
      const lines = keys.map(
        (k) =>
          `${k.id}  ${k.keyPrefix}...  ${k.environment}  [${k.scopes.join(',')}]  ${k.rateTier}  ${k.revokedAt ? 'revoked' : 'active'}  ${k.name}`,
      );
      return print(keys, lines.join('\n') || 'No keys.');
    }
    case 'keys revoke': {
      const tenant = await tenantOpt();
      const keyId = opts.key as string;
      const revoked = /^[0-9a-f-]{36}$/i.test(keyId)
        ? await revokeApiKey(database.db, tenant.id, keyId, new Date())
        : undefined;
      if (!revoked)
        throw new CliError(`Key ${keyId} not found in tenant ${tenant.id} (\`keys list\` lists them)`);
      if (config.redisUrl) await announceRevocation(config.redisUrl, revoked.id);
      return print(revoked, `Revoked key ${revoked.id}`);
    }
    case 'feeds export': {
      const tenant = await tenantOpt();
      const written = await exportAcpFeed(
        database.db,
        tenant.id,
        config.publicBaseUrl,
        optional(opts, 'out'),
      );
      // On standard output the feed is all there is; a file gets a summary.
      if (written.out === null) return;
      return print(written, `Wrote ${written.products} products (${written.bytes} bytes) to ${written.out}`);
    }
    case 'encryption status':
    case 'encryption rotate': {
      const ring = loadKeyRing(config);
      const mode = key === 'encryption rotate' ? 'rotate' : 'clear';
      const reports = await resealSecrets(database.db, ring, mode, TABLE_LAYOUT.sealed);
      const lines = reports.map(
        (r) => `  ${r.table}.${r.column}: ${r.resealed} re-sealed, ${r.remaining} not under the current key`,
      );
      const ids = ring.keys.map((k) => k.id);
      return print(
        { keySource: ring.source, currentKeyId: ring.currentId, keyIds: ids, columns: reports },
        `Keys from ${ring.source}; current key ${ring.currentId} (of ${ids.join(', ')})\n${lines.join('\n')}`,
      );
    }
    default:
      throw new UsageError(`unknown command: ${key}`);
  }
}
