#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { heldByServerMessage, runningServer } from './server-file.js';
import {
  API_CAPABLE,
  API_COMMANDS,
  CliError,
  checkUsage,
  commandKey,
  type Options,
  USAGE,
  UsageError,
} from './usage.js';

// The entry point stays light: usage, --version and a bad command line answer before anything
// heavy loads; each command loads its own modules (the database, the service) when it runs.

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return `commerce-agent ${pkg.version}`;
}

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        help: { type: 'boolean' },
        version: { type: 'boolean' },
        name: { type: 'string' },
        tenant: { type: 'string' },
        scopes: { type: 'string' },
        tier: { type: 'string' },
        env: { type: 'string' },
        key: { type: 'string' },
        out: { type: 'string' },
        url: { type: 'string' },
        'api-key': { type: 'string' },
        'forward-to': { type: 'string' },
        events: { type: 'string' },
        webhook: { type: 'string' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

async function main() {
  const parsed = parse();
  const opts = parsed.values as Options;
  const json = opts.json === true;
  const print = (value: unknown, text: string) =>
    process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
  if (opts.version) return void process.stdout.write(`${version()}\n`);
  if (opts.help || parsed.positionals.length === 0) return void process.stdout.write(`${USAGE}\n`);
  const key = commandKey(parsed.positionals);
  checkUsage(key, parsed.positionals, opts);
  if (API_COMMANDS.includes(key)) {
    const webhooks = await import('./webhooks.js');
    if (key === 'webhooks listen') {
      await webhooks.listenWebhooks(opts, (line) => print({ line }, line));
      // Done once its endpoint is removed: idle keep-alive connections need not be waited for.
      process.exit(0);
    }
    return webhooks.triggerWebhook(parsed.positionals[2], opts, (line, value) => print(value, line));
  }
  // Beside the running embedded server (or with --url): what its API does goes through it, and
  // the rest says so, without loading the database code first.
  const { dataDir, databaseUrl } = loadConfig();
  const server = databaseUrl ? undefined : runningServer(dataDir);
  if (API_CAPABLE.has(key) && (server || opts.url !== undefined)) {
    const { runThroughApi } = await import('./keys-over-api.js');
    return runThroughApi(key, opts, print);
  }
  if (server) throw new CliError(heldByServerMessage(dataDir, server));
  const { runDatabaseCommand } = await import('./database-commands.js');
  await runDatabaseCommand(key, parsed.positionals, opts, print);
}

/** Errors the user fixes as their message says: one line, no stack. */
const ONE_LINE = new Set(['ConfigError', 'DataDirLockedError', 'SeedError']);

main().catch((err) => {
  if (err instanceof UsageError) process.stderr.write(`Error: ${err.message}\n\n${USAGE}\n`);
  else if (err instanceof CliError || ONE_LINE.has((err as Error)?.name))
    process.stderr.write(`Error: ${(err as Error).message}\n`);
  else process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
