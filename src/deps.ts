import pino, { type Logger } from 'pino';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { type Database, type Db, openPglite, openPostgres } from './db/client.js';
import { ApiKeyResolver } from './modules/api-keys/index.js';

/** Everything the app needs from the outside world, built once in the composition root. */
export interface Deps {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
  logger: Logger;
  apiKeys: ApiKeyResolver;
}

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, redact: ['req.headers.authorization'] });
}

export async function openConfiguredDatabase(config: Config, logger: Logger): Promise<Database> {
  return config.databaseUrl ? openPostgres({ url: config.databaseUrl, logger }) : openPglite(config.dataDir);
}

export function createDeps(
  config: Config,
  database: Database,
  logger: Logger,
  overrides: Partial<Pick<Deps, 'clock'>> = {},
): Deps {
  const clock = overrides.clock ?? systemClock;
  return {
    config,
    database,
    db: database.db,
    clock,
    logger,
    apiKeys: new ApiKeyResolver(database.db, clock, config.apiKeyCacheTtlMs, logger),
  };
}
