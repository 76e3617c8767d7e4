import fs from 'node:fs';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, cleanUpProcesses, freePort, spawnScript, tempDir } from '../support/service-processes.js';

// The server refuses to start in one line naming the variable at fault, before it opens, seeds or
// prints anything: a taken PORT, a DATABASE_URL that leads nowhere.

const KEYS = 'k1:0000000000000000000000000000000000000000000000000000000000000001';

async function start(env: Record<string, string>) {
  const dataDir = tempDir();
  const proc = spawnScript('src/main.ts', [], childEnv(dataDir, { LOG_LEVEL: 'info', ...env }));
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr(), dataDir };
}

describe('start-up errors', { timeout: 120_000 }, () => {
  afterAll(cleanUpProcesses);

  it('a PORT in use is refused before the database is opened or the demo seeded', async () => {
    const port = await freePort();
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
    try {
      const result = await start({ PORT: String(port) });
      expect(result).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `Invalid configuration: PORT ${port} is already in use on 127.0.0.1: stop the process listening there, or set PORT to a free port\n`,
      });
      // Nothing written: no demo keys, no generated encryption key, no database.
      expect(fs.readdirSync(result.dataDir)).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('a DATABASE_URL that leads nowhere is one line naming it, the password hidden', async () => {
    const port = await freePort(); // nothing listens there
    const result = await start({
      PORT: String(await freePort()),
      DATABASE_URL: `postgres://app:s3cret@127.0.0.1:${port}/shop`,
      APP_ENCRYPTION_KEYS: KEYS,
    });
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        `Invalid configuration: DATABASE_URL (postgres://app:***@127.0.0.1:${port}/shop) does not lead to a usable ` +
        "database: connection refused. Check that PostgreSQL runs there and the URL's host, port, user, password and database\n",
    });
  });
});
