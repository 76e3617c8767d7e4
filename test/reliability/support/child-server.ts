import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

// The real server (src/main.ts) or worker (src/worker.ts) as a child process, as in
// test/platform/process.test.ts.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface Child {
  child: ChildProcess;
  port: number;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcess>();

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

export function spawnChild(port: number, env: Record<string, string>, script = 'src/main.ts'): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: {
      ...process.env,
      REDIS_URL: '',
      APP_ENV: 'sandbox',
      SEED_DEMO: '',
      PUBLIC_BASE_URL: '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  const keep = (chunk: string) => {
    out = (out + chunk).slice(-20_000);
  };
  child.stdout?.setEncoding('utf8').on('data', keep);
  child.stderr?.setEncoding('utf8').on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, port, output: () => out, exited };
}

export async function waitReady(c: Child, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (c.child.exitCode !== null || c.child.signalCode !== null) {
      throw new Error(`child exited before it was ready:\n${c.output()}`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${c.port}/readyz`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`child not ready within ${timeoutMs} ms:\n${c.output()}`);
}

/**
 * Waits until the child has printed `text` (a worker has no HTTP port to poll: start it with
 * LOG_LEVEL=info and wait for 'webhook delivery worker ready').
 */
export async function waitForOutput(c: Child, text: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (c.output().includes(text)) return;
    if (c.child.exitCode !== null || c.child.signalCode !== null) {
      throw new Error(`child exited before printing ${JSON.stringify(text)}:\n${c.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`child did not print ${JSON.stringify(text)} within ${timeoutMs} ms:\n${c.output()}`);
}

/** Resident set size of a process in MB, from /proc (Linux). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

export async function kill(c: Child, signal: NodeJS.Signals = 'SIGKILL') {
  if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill(signal);
  await c.exited;
}

/** Kills every child still running (afterAll). */
export async function killAll() {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('close', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}
