import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { expect } from 'vitest';
import { startServerProcess, tempDir } from '../support/service-processes.js';
import { waitFor } from '../support/wait.js';

// What the console's browser tests share: the system Chromium, a started server with the console
// built, the API as a key calls it, an axe check, screenshots kept in docs/console/ (rewritten
// only with UPDATE_CONSOLE_SCREENSHOTS=1), and a local webhook receiver.

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/**
 * Why the console's browser tests do not run here, if they do not. They start their own server on
 * the embedded database (PGlite) whatever DATABASE_URL says, so CI runs them in its PGlite pass
 * only: run again in the PostgreSQL and Citus passes they would prove nothing new, for minutes each.
 */
export const browserSkipReason: string | undefined = !hasChromium
  ? `the console browser tests need ${CHROMIUM} (apt-get install -y chromium)`
  : process.env.DATABASE_URL
    ? 'the console browser tests start an embedded server of their own: they run when DATABASE_URL is not set'
    : undefined;
if (browserSkipReason) console.warn(`SKIPPED: ${browserSkipReason}`);

const SHOTS = fileURLToPath(new URL('../../docs/console/', import.meta.url));
const updateShots = process.env.UPDATE_CONSOLE_SCREENSHOTS === '1';

/** No serious or critical axe violation (WCAG 2.1 A and AA rules) on the page as it is now. */
export async function expectAccessible(page: Page, what: string) {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  const bad = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(bad, what).toEqual([]);
}

export async function screenshot(page: Page, name: string) {
  if (!updateShots) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: false });
}

/** An HTTP receiver on 127.0.0.1 that answers 200, or 503 while `failing`. */
export async function startLocalReceiver() {
  const received: string[] = [];
  const state = { failing: false };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      if (state.failing) {
        res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' });
        res.end('receiver down for the test');
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The console built into a temporary directory and a server started with it (embedded database,
 * demo tenant): the first owner's printed one-time sign-in link and the demo tenant's keys file.
 */
export async function startConsoleServer(env: Record<string, string> = {}) {
  const consoleDir = tempDir();
  await build({
    configFile: 'console/vite.config.ts',
    build: { outDir: consoleDir, emptyOutDir: true },
    logLevel: 'warn',
  });
  const server = await startServerProcess({ SEED_DEMO: 'true', CONSOLE_DIR: consoleDir, ...env });
  const link = /(http\S+\/console\/#\/link\/\S+)/;
  await waitFor(() => link.test(server.proc.stdout()), 'the printed console sign-in link');
  const signInLink = link.exec(server.proc.stdout())?.[1] ?? '';
  // biome-ignore lint/suspicious/noExplicitAny: each test reads the keys and ids it needs
  const demo = JSON.parse(readFileSync(join(server.dataDir, 'demo-keys.json'), 'utf8')) as any;
  return { server, signInLink, demo };
}

/** A call of the API with `key`: the answer's data, or an error naming the status and body. */
export async function callApi(baseUrl: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${baseUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the tests read the fields they need from any answer
  const json = (await res.json()) as { data: any };
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${JSON.stringify(json)}`);
  return json.data;
}

/** The demo owner signs in with the printed link, choosing a password, and lands on the overview. */
export async function signInOwner(page: Page, signInLink: string) {
  await page.goto(signInLink);
  await page.getByLabel('New password').fill('owner-password-for-tests');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}
