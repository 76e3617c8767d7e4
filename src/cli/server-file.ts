import fs from 'node:fs';
import path from 'node:path';

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
