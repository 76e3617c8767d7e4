import { existsSync } from 'node:fs';

// The command line's words: usage text, errors, option checks. Nothing heavy is imported here, so
// `--help`, `--version` and a bad command line answer without loading the service.

export const USAGE = `Usage: commerce-agent <command> [options]   (npm run cli -- <command> ...)

Database commands use DATABASE_URL when set, otherwise the embedded database in DATA_DIR
(./data). The embedded database allows one process at a time: while the server runs, stop it
first, or use the commands that go through its API (keys, feeds, webhooks: see below).

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

Through a running server's API (--url, --api-key; see "Server" below):
  webhooks listen [--forward-to <url>] [--events <type,...>]
                                       receive the tenant's webhook deliveries as they happen on a
                                       temporary endpoint, print each (type, id, -> status) and
                                       forward it, signed, to the URL; Ctrl-C removes the endpoint
  webhooks trigger [webhook.test] [--webhook <id>]
                                       send a test event to the listening endpoint (or the webhook)
  keys issue|list|revoke, feeds export with --url (or beside a running embedded server): the
                                       same through /api/v1/admin (the key's own tenant)

Server: --url <base URL> (or COMMERCE_API_URL; default: the embedded server running on DATA_DIR,
from DATA_DIR/server.json) and --api-key <admin API key> (or COMMERCE_API_KEY; default: the demo
admin key in DATA_DIR/demo-keys.json).

Options:
  --json      machine-readable output
  --help      this text
  --version   the version`;

/** A bad command line: the message, then the usage text; exit code 2. */
export class UsageError extends Error {}

/** A failure the user fixes as its one line says (no usage text, no stack); exit code 1. */
export class CliError extends Error {}

export type Options = Record<string, string | boolean | undefined>;

export function required(opts: Options, name: string): string {
  const value = opts[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export const optional = (opts: Options, name: string): string | undefined =>
  typeof opts[name] === 'string' ? (opts[name] as string) : undefined;

export const DATABASE_COMMANDS = [
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

export const API_COMMANDS = ['webhooks listen', 'webhooks trigger'];

/** Database commands a running server's admin API also does (src/cli/keys-over-api.ts). */
export const API_CAPABLE = new Set(['keys issue', 'keys list', 'keys revoke', 'feeds export']);

/** The command's name: `group verb`, or `seed` (which takes a file where others take a verb). */
export function commandKey(positionals: readonly string[]): string {
  const [group, verb] = positionals;
  return group === 'seed' ? 'seed' : `${group ?? ''} ${verb ?? ''}`.trim();
}

/** Rejects a bad command line before anything is loaded or opened. */
export function checkUsage(key: string, positionals: readonly string[], opts: Options) {
  if (!DATABASE_COMMANDS.includes(key) && !API_COMMANDS.includes(key))
    throw new UsageError(`unknown command: ${positionals.join(' ') || '(none)'}`);
  if (key === 'tenants create') required(opts, 'name');
  if (key === 'seed') {
    const file = positionals[1];
    if (!file) throw new UsageError('seed needs a file: seed <file.yaml|file.json> --tenant <id>');
    required(opts, 'tenant');
    if (!existsSync(file))
      throw new CliError(
        `Seed file ${file} not found (from ${process.cwd()}); give the path of a YAML or JSON seed file, e.g. examples/demo-catalog.yaml`,
      );
  }
  if (key.startsWith('keys ') || key === 'feeds export') required(opts, 'tenant');
  if (key === 'keys revoke') required(opts, 'key');
  if (key === 'keys issue') required(opts, 'scopes');
}
