import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, type startServerProcess } from '../support/service-processes.js';
import {
  browserSkipReason,
  CHROMIUM,
  callApi,
  expectAccessible,
  signInOwner,
  startConsoleServer,
} from './browser.js';

// The console's Team and Customers pages in headless Chromium against a started server (embedded,
// demo tenant): a pending invitation revoked from its own list, and customers searched by name,
// each screen checked with axe.

let server: Awaited<ReturnType<typeof startServerProcess>>;
let browser: Browser;
let page: Page;
let adminKey: string;

const apiCall = (method: string, path: string, body?: unknown) =>
  callApi(server.url, adminKey, method, path, body);

const go = (hash: string) => page.goto(`${server.url}/console/#/${hash}`);

describe.skipIf(browserSkipReason !== undefined)('the console’s team and customers pages', () => {
  beforeAll(async () => {
    const started = await startConsoleServer();
    server = started.server;
    adminKey = started.demo.keys.admin;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    await signInOwner(page, started.signInLink);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await cleanUpProcesses();
  });

  it('lists a pending invitation apart from the users and revokes it: its link no longer works', async () => {
    await go('team');
    await page.getByLabel(/^Email/).fill('revoked@example.com');
    await page.getByRole('button', { name: 'Invite' }).click();
    const invitation = (await page.getByTestId('once-secret').textContent()) ?? '';
    expect(invitation).toMatch(/\/console\/#\/link\//);
    const pending = page.getByRole('table', { name: 'Pending invitations' });
    await pending.getByRole('cell', { name: 'revoked@example.com', exact: true }).waitFor();
    const users = page.getByRole('table', { name: 'Users' });
    await users.getByRole('cell', { name: 'owner@demo.local', exact: true }).waitFor();
    expect(await users.getByRole('cell', { name: 'revoked@example.com', exact: true }).count()).toBe(0);
    await expectAccessible(page, 'team with a pending invitation');

    await page.getByRole('button', { name: 'Revoke the invitation of revoked@example.com' }).click();
    await pending
      .getByRole('cell', { name: 'revoked@example.com', exact: true })
      .waitFor({ state: 'detached' });
    const invitee = await browser.newContext();
    const refused = await invitee.newPage();
    await refused.goto(invitation);
    await refused.getByLabel('New password').fill('a password long enough');
    await refused.getByRole('button', { name: 'Continue' }).click();
    await refused.getByRole('alert').filter({ hasText: 'already used or has expired' }).waitFor();
    await invitee.close();
  }, 60_000);

  it('finds a customer by a part of its name', async () => {
    await apiCall('POST', '/accounts', { name: 'Umbrella Research', email: 'ap@umbrella.example' });
    await go('customers');
    const list = page.getByRole('table', { name: 'Customer accounts' });
    await list.getByRole('link').first().waitFor();
    await page.getByLabel('Name or email').fill('brella res');
    await page.getByRole('button', { name: 'Search' }).click();
    await list.getByRole('link', { name: 'Umbrella Research' }).waitFor();
    await expect.poll(() => list.getByRole('row').count()).toBe(2);
    await expectAccessible(page, 'customers searched by name');
    await page.getByLabel('Name or email').fill('nobody by this name');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Nothing here yet.').waitFor();
  });
});
