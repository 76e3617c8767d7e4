#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { type AppEnv, ConfigError, loadConfig } from '../config.js';
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
import { readSeedFile, SeedError, seedCatalog } from '../seed/catalog.js';
import { formatDemoBanner, seedDemoIfEmpty } from '../seed/demo.js';
import { exportAcpFeed } from './feeds.js';

const USAGE = `Usage: commerce-agent <command> [options]   (npm run cli -- <command> ...)

Uses DATABASE_URL when set, otherwise the embedded database in DATA_DIR (./data).
The embedded database allows one process at a time: stop the server first, or use the
admin API (/api/v1/admin/api-keys) while it runs.

Commands:
  migrate                              apply database migrations
  seed-demo                            create the demo tenant, keys and catalog if the database is empty
  seed <file> --tenant <id>            load a catalog (products, rules, offers, promotions, plan links
                                       and rules, policies, shipping options) from YAML or JSON;
                                       items whose id exists are updated (see examples/demo-catalog.yaml)
  tenants create --name <name>         create a tenant
  tenants list                         list tenants
  keys issue --tenant <id> --scopes <read,commerce,admin> [--tier standard|premium|unlimited]
             [--env sandbox|production] [--name <label>]
                                       issue an API key (printed once)
  keys list --tenant <id>              list a tenant's keys
  keys revoke --tenant <id> --key <key id>
                                       revoke a key
  feeds export --tenant <id> [--out <file>]
                                       the tenant's published catalog as an ACP product feed
                                       (JSON Lines, as GET /api/v1/admin/feeds/acp), to standard
                                       output or to the file
  encryption status                    where the encryption keys come from, and what is not yet
                                       sealed by the current (first) key
  encryption rotate                    re-seal every stored secret under the current key (after
                                       putting a new key first in APP_ENCRYPTION_KEYS or the key file)

Options:
  --json    machine-readable output
  --help    this text`;

class UsageError extends Error {}

type Options = Record<string, string | boolean | undefined>;

function required(opts: Options, name: string): string {
  const value = opts[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

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
  if (!tenant) throw new UsageError(`tenant ${id} not found`);
  return tenant;
}

/** Tells running instances (over Redis) to stop accepting the key now, not when their cache expires. */
async function announceRevocation(redisUrl: string, keyId: string) {
  const bus = redisRevocationBus(redisUrl, createLogger({ logLevel: 'warn' }), () => {});
  await bus.publish(keyId);
  await bus.close();
}

function print(json: boolean, value: unknown, text: string) {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}

const COMMANDS = [
  'migrate',
  'seed',
  'seed-demo',
  'tenants create',
  'tenants list',
  'keys issue',
  'keys list',
  'keys revoke',
  'feeds export',
  'encryption status',
  'encryption rotate',
];

/** Rejects a bad command line before the database is opened (and its lock taken). */
function checkUsage(key: string, opts: Options) {
  if (!COMMANDS.includes(key)) throw new UsageError(`unknown command: ${key || '(none)'}`);
  if (key === 'tenants create') required(opts, 'name');
  if (key === 'seed') required(opts, 'tenant');
  if (key.startsWith('keys ') || key === 'feeds export') required(opts, 'tenant');
  if (key === 'keys revoke') required(opts, 'key');
  if (key === 'keys issue') {
    parseScopes(required(opts, 'scopes'));
    parseTier(opts.tier as string | undefined);
    parseEnv(opts.env as string | undefined, 'sandbox');
  }
}

async function run(command: string[], opts: Options): Promise<void> {
  const [group, verb] = command;
  // `seed <file>` takes a path where other commands take a verb.
  const key = group === 'seed' ? 'seed' : `${group ?? ''} ${verb ?? ''}`.trim();
  checkUsage(key, opts);
  const config = loadConfig();
  const json = opts.json === true;
  const database = await openConfiguredDatabase(config, createLogger({ logLevel: 'warn' }));
  try {
    await database.migrate(TABLE_LAYOUT);
    switch (key) {
      case 'migrate':
        return print(json, { migrated: true }, 'Migrations applied.');
      case 'seed': {
        if (!verb) throw new UsageError('seed needs a file: seed <file.yaml|file.json> --tenant <id>');
        const tenant = await requireTenant(database, required(opts, 'tenant'));
        const report = await seedCatalog(database.db, tenant.id, readSeedFile(verb));
        const summary = (counts: Record<string, number>) =>
          Object.entries(counts)
            .map(([k, n]) => `${n} ${k}`)
            .join(', ') || 'nothing';
        return print(
          json,
          report,
          `Seeded tenant ${tenant.id}: created ${summary(report.created)}; updated ${summary(report.updated)}.`,
        );
      }
      case 'seed-demo': {
        const seed = await seedDemoIfEmpty(database.db, config.appEnv, config.dataDir);
        if (!seed) return print(json, { seeded: false }, 'The database already has tenants; nothing seeded.');
        return print(json, { seeded: true, ...seed }, formatDemoBanner(seed, config.publicBaseUrl));
      }
      case 'tenants create': {
        const tenant = await createTenant(database.db, required(opts, 'name'));
        return print(json, tenant, `Created tenant ${tenant.id} (${tenant.name})`);
      }
      case 'tenants list': {
        const tenants = await listTenants(database.db);
        return print(json, tenants, tenants.map((t) => `${t.id}  ${t.name}`).join('\n') || 'No tenants.');
      }
      case 'keys issue': {
        const tenant = await requireTenant(database, required(opts, 'tenant'));
        const scopes = parseScopes(required(opts, 'scopes'));
        const { apiKey, secret } = await issueApiKey(database.db, tenant.id, {
          name: typeof opts.name === 'string' ? opts.name : `${scopes.join('+')} key`,
          scopes,
          rateTier: parseTier(opts.tier as string | undefined),
          environment: parseEnv(opts.env as string | undefined, config.appEnv),
        });
        return print(
          json,
          { ...apiKey, key: secret },
          `Issued ${apiKey.environment} key ${apiKey.id} [${apiKey.scopes.join(', ')}; ${apiKey.rateTier}]\n${secret}\n(shown once)`,
        );
      }
      case 'keys list': {
        const tenant = await requireTenant(database, required(opts, 'tenant'));
        const keys = await listApiKeys(database.db, tenant.id);
        const lines = keys.map(
          (k) =>
            `${k.id}  ${k.keyPrefix}...  ${k.environment}  [${k.scopes.join(',')}]  ${k.rateTier}  ${k.revokedAt ? 'revoked' : 'active'}  ${k.name}`,
        );
        return print(json, keys, lines.join('\n') || 'No keys.');
      }
      case 'keys revoke': {
        const tenant = await requireTenant(database, required(opts, 'tenant'));
        const keyId = required(opts, 'key');
        const revoked = /^[0-9a-f-]{36}$/i.test(keyId)
          ? await revokeApiKey(database.db, tenant.id, keyId, new Date())
          : undefined;
        if (!revoked) throw new UsageError(`key ${keyId} not found in tenant ${tenant.id}`);
        if (config.redisUrl) await announceRevocation(config.redisUrl, revoked.id);
        return print(json, revoked, `Revoked key ${revoked.id}`);
      }
      case 'feeds export': {
        const tenant = await requireTenant(database, required(opts, 'tenant'));
        const out = typeof opts.out === 'string' ? opts.out : undefined;
        const written = await exportAcpFeed(database.db, tenant.id, config.publicBaseUrl, out);
        // On standard output the feed is all there is; a file gets a summary.
        if (written.out === null) return;
        return print(
          json,
          written,
          `Wrote ${written.products} products (${written.bytes} bytes) to ${written.out}`,
        );
      }
      case 'encryption status':
      case 'encryption rotate': {
        const ring = loadKeyRing(config);
        const reports = await resealSecrets(
          database.db,
          ring,
          verb === 'rotate' ? 'rotate' : 'clear',
          TABLE_LAYOUT.sealed,
        );
        const lines = reports.map(
          (r) =>
            `  ${r.table}.${r.column}: ${r.resealed} re-sealed, ${r.remaining} not under the current key`,
        );
        return print(
          json,
          {
            keySource: ring.source,
            currentKeyId: ring.currentId,
            keyIds: ring.keys.map((k) => k.id),
            columns: reports,
          },
          `Keys from ${ring.source}; current key ${ring.currentId} (of ${ring.keys.map((k) => k.id).join(', ')})\n${lines.join('\n')}`,
        );
      }
      default:
        throw new UsageError(`unknown command: ${key}`);
    }
  } finally {
    await database.close();
  }
}

async function main() {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        help: { type: 'boolean' },
        name: { type: 'string' },
        tenant: { type: 'string' },
        scopes: { type: 'string' },
        tier: { type: 'string' },
        env: { type: 'string' },
        key: { type: 'string' },
        out: { type: 'string' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.values.help || parsed.positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  await run(parsed.positionals, parsed.values as Options);
}

main().catch((err) => {
  if (err instanceof UsageError) process.stderr.write(`Error: ${err.message}\n\n${USAGE}\n`);
  else if (err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof SeedError)
    process.stderr.write(`${err.message}\n`);
  else process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
