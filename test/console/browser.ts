import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

// What the console's browser tests share: the system Chromium, an axe check, screenshots kept in
// docs/console/ (rewritten only with UPDATE_CONSOLE_SCREENSHOTS=1), and a local webhook receiver.

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
