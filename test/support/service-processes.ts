import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { nodeArgs } from './built-src.js';
import { waitFor } from './wait.js';

// The server and the CLI as child processes (from src/ compiled once: built-src.ts), with their
// output collected, for the tests of the command line and of local webhooks.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Proc {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();
const dirs: string[] = [];

/** The environment of a child: embedded, sandbox, nothing leaking in from the caller's. */
export function childEnv(dataDir: string, env: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: '',
    REDIS_URL: '',
    APP_ENCRYPTION_KEYS: '',
    APP_ENCRYPTION_KEY_FILE: '',
    WEBHOOK_SECRET_KEY: '',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '',
    COMMERCE_API_URL: '',
    COMMERCE_API_KEY: '',
    APP_ENV: 'sandbox',
    SEED_DEMO: '',
    PUBLIC_BASE_URL: '',
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...env,
  };
}

/** Starts `script` (src/main.ts: the server; src/cli/main.ts: the CLI) with `args`. */
export function spawnScript(script: string, args: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(process.execPath, [...nodeArgs(inject('builtRoot'), script), ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs the CLI to its end. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv) {
  const proc = spawnScript('src/cli/main.ts', args, env);
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cak-proc-'));
  dirs.push(dir);
  return dir;
}

/** Starts the embedded server on a fresh data dir and waits until it answers /readyz. */
export async function startServerProcess(env: Record<string, string> = {}) {
  const dataDir = tempDir();
  const port = await freePort();
  const proc = spawnScript('src/main.ts', [], childEnv(dataDir, { PORT: String(port), ...env }));
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  void proc.exited.then(() => {
    exited = true;
  });
  await waitFor(async () => {
    if (exited) throw new Error(`server exited before becoming ready:\n${proc.stderr()}\n${proc.stdout()}`);
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).catch(() => null);
    return res?.status === 200;
  }, 'the server to be ready');
  return { proc, url, port, dataDir };
}

/** Stops every child still running and removes the temporary directories. */
export async function cleanUpProcesses() {
  for (const child of running) child.kill('SIGTERM');
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            child.kill('SIGKILL');
            resolve();
          }, 10_000);
          child.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
        }),
    ),
  );
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
