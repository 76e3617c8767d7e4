import fs from 'node:fs';
import path from 'node:path';
import { isAlive } from '../db/data-dir-lock.js';

/**
 * `<DATA_DIR>/server.json`: where the embedded server that holds the data directory listens. The
 * embedded database is open to one process, so the CLI finds the running server here and goes
 * through its HTTP API instead (or names it in its error). Owner-only, removed when it stops.
 */
export const SERVER_FILE = 'server.json';

export interface ServerFile {
  pid: number;
  /** The base URL the server answers at (its real port, also when PORT=0). */
  url: string;
}

export function writeServerFile(dataDir: string, url: string): () => void {
  const file = path.join(dataDir, SERVER_FILE);
  fs.writeFileSync(file, `${JSON.stringify({ pid: process.pid, url } satisfies ServerFile)}\n`, {
    mode: 0o600,
  });
  return () => {
    if (readServerFile(dataDir)?.pid === process.pid) fs.rmSync(file, { force: true });
  };
}

/** The running server's file, or undefined when none is there (or it is not readable JSON). */
export function readServerFile(dataDir: string): ServerFile | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dataDir, SERVER_FILE), 'utf8')) as ServerFile;
    return typeof parsed.url === 'string' && Number.isInteger(parsed.pid) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The embedded server running on `dataDir` now, if any (its file, and its process alive). */
export function runningServer(dataDir: string): ServerFile | undefined {
  const server = readServerFile(dataDir);
  return server && isAlive(server.pid) ? server : undefined;
}

/** What a command that needs the embedded database says while the server holds it. */
export function heldByServerMessage(dataDir: string, server: ServerFile): string {
  return (
    `The embedded database in ${dataDir} is in use by the server at ${server.url} (pid ${server.pid}), ` +
    'and only one process can open it: stop the server and run this again, or run on PostgreSQL ' +
    '(DATABASE_URL). While it runs, the keys and feeds commands go through its API (see --help).'
  );
}
