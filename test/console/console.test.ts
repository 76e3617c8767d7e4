import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, type startServerProcess } from '../support/service-processes.js';
import {
  browserSkipReason,
  CHROMIUM,
  callApi,
  expectAccessible,
  screenshot,
  startConsoleServer,
  startLocalReceiver,
} from './browser.js';

// The web console in headless Chromium against a real started server (embedded, demo tenant):
// the first owner's printed sign-in link, API keys, webhooks and their deliveries, orders,
// refunds, product content, a viewer's refused writes, and an axe check of every page.

interface Demo {
  keys: { read: string; commerce: string; admin: string };
  accountId: string;
  billingAccountId: string;
}

const WORKSHOP = '0190a000-0000-7000-8000-000000000005';
let server: Awaited<ReturnType<typeof startServerProcess>>;
let receiver: Awaited<ReturnType<typeof startLocalReceiver>>;
let browser: Browser;
let owner: BrowserContext;
let page: Page;
let demo: Demo;
let signInLink: string;
const fixture = { orderNumber: '', orderId: '', paymentId: '' };

const apiCall = (method: string, path: string, key: string, body?: unknown) =>
  callApi(server.url, key, method, path, body);

/** An order of the demo account, invoiced, paid in the sandbox: what the console finds and refunds. */
async function paidOrder() {
  const order = await apiCall('POST', '/orders', demo.keys.commerce, {
    organizationId: demo.accountId,
    items: [{ productId: WORKSHOP, quantity: 1 }],
  });
  const payment = await apiCall('POST', `/invoices/${order.invoiceId}/pay`, demo.keys.commerce, {
    accountId: demo.billingAccountId,
    amountCents: order.totalCents,
    currency: 'USD',
  });
  await apiCall('POST', `/payments/${payment.id}/complete`, demo.keys.commerce, { proof: 'sandbox' });
  Object.assign(fixture, { orderNumber: order.orderNumber, orderId: order.id, paymentId: payment.id });
}

const go = async (hash: string) => {
  await page.goto(`${server.url}/console/#/${hash}`);
};
const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });

describe.skipIf(browserSkipReason !== undefined)('the web console in a browser', () => {
  beforeAll(async () => {
    receiver = await startLocalReceiver();
    ({ server, signInLink, demo } = await startConsoleServer({ WEBHOOK_POLL_INTERVAL_MS: '100' }));
    await apiCall('PATCH', '/admin/settings', demo.keys.admin, { allowLoopbackWebhooks: true });
    await paidOrder();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    owner = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await owner.newPage();
    page.on('pageerror', (error) => console.warn(`console page error: ${error.message}`));
  }, 180_000);
  // A failed step leaves a picture of the page (in the temp directory) to see why.
  afterEach(async (context) => {
    if (context.task.result?.state !== 'fail' || !page) return;
    const file = join(tmpdir(), `console-failed-${context.task.name.replace(/\W+/g, '-')}.png`);
    await page.screenshot({ path: file }).catch(() => undefined);
    console.warn(`console test failed: screenshot at ${file}`);
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await cleanUpProcesses();
  });

  it('signs the first owner in with the printed one-time link, which works once', async () => {
    expect(signInLink).toMatch(new RegExp(`^${server.url}/console/#/link/`));
    await page.goto(signInLink);
    await expectAccessible(page, 'link page');
    await page.getByLabel('New password').fill('owner-password-for-tests');
    await page.getByRole('button', { name: 'Continue' }).click();
    await heading('Overview').waitFor();
    await page.getByText('owner@demo.local (owner)').waitFor();
    // Spent: the same link again is refused with a message.
    const other = await browser.newContext();
    const again = await other.newPage();
    await again.goto(signInLink);
    await again.getByRole('button', { name: 'Continue' }).click();
    await again.getByRole('alert').waitFor();
    await expectAccessible(again, 'link page with an error');
    await again.goto(`${server.url}/console/`);
    await again.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await expectAccessible(again, 'sign-in page');
    await screenshot(again, 'sign-in');
    await again.getByLabel(/^Email/).fill('owner@demo.local');
    await again.locator('input[type=password]').fill('owner-password-for-tests');
    await again.getByRole('button', { name: 'Sign in' }).click();
    await again.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await other.close();
  }, 60_000);

  it('shows the overview with the paid order', async () => {
    await go('overview');
    await page.getByRole('img', { name: /Net revenue in USD/ }).waitFor();
    await expectAccessible(page, 'overview');
    await screenshot(page, 'overview');
  });

  it('issues an API key shown once, with a copy button, that works', async () => {
    await go('developers/keys');
    await page.getByLabel('Key name').fill('console test key');
    await page.getByRole('button', { name: 'Issue key' }).click();
    const secret = page.getByTestId('once-secret');
    await secret.waitFor();
    const key = (await secret.textContent()) ?? '';
    expect(key).toMatch(/^cak_test_/);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    expect((await apiCall('GET', '/manifest', key)).tenant).toBeTruthy();
    await page.getByRole('cell', { name: 'console test key', exact: true }).waitFor();
    await expectAccessible(page, 'developers: API keys');
    await screenshot(page, 'developers');
    // Once: after a reload the list shows its prefix only.
    await page.reload();
    await page.getByRole('cell', { name: 'console test key', exact: true }).waitFor();
    expect(await page.getByTestId('once-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
  });

  it('creates a webhook to a local receiver, sends a test event and shows its delivery', async () => {
    await go('webhooks');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await page.getByTestId('once-secret').textContent()).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Open the new endpoint' }).click();
    await heading(receiver.url).waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByRole('row', { name: /webhook\.test.*succeeded/ }).waitFor({ timeout: 20_000 });
    expect(receiver.received.some((body) => body.includes('webhook.test'))).toBe(true);
    await expectAccessible(page, 'webhook endpoint');
    await screenshot(page, 'webhook');
  });

  it('shows a failing receiver’s dead letter with its attempts, and replays it', async () => {
    receiver.state.failing = true;
    await page.getByRole('button', { name: 'Send test event' }).click();
    // Five attempts, 2 s apart (the shortest wait between them), then dead_letter.
    const dead = page.getByRole('row', { name: /webhook\.test.*dead letter/ });
    await dead.waitFor({ timeout: 40_000 });
    await dead.getByRole('link').click();
    await heading('Delivery of webhook.test').waitFor();
    await page.getByRole('cell', { name: 'receiver down for the test' }).first().waitFor();
    expect(await page.getByRole('row', { name: /503/ }).count()).toBe(5);
    await expectAccessible(page, 'webhook delivery');
    receiver.state.failing = false;
    await page.getByRole('button', { name: 'Replay' }).click();
    await page.getByText('succeeded', { exact: true }).waitFor({ timeout: 20_000 });
  }, 90_000);

  it('finds an order by its number and reads its audit trail', async () => {
    await go('orders');
    await page.getByLabel('Order number').fill(fixture.orderNumber);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: fixture.orderNumber }).click();
    await heading(`Order ${fixture.orderNumber}`).waitFor();
    await page.getByRole('cell', { name: 'order.create' }).waitFor();
    await expectAccessible(page, 'order');
    await screenshot(page, 'order');
  });

  it('refunds a payment from its page', async () => {
    await go(`payments/payment/${fixture.paymentId}`);
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByTestId('refunded').filter({ hasText: '1,500.00' }).waitFor();
    await page.getByRole('cell', { name: 'requested by customer' }).waitFor();
    const payment = await apiCall('GET', `/payments/${fixture.paymentId}`, demo.keys.read);
    expect(payment.refundedCents).toBe(payment.amountCents);
    await expectAccessible(page, 'payment');
    await screenshot(page, 'payment');
  });

  it('edits a product’s content and finds it in the catalog search', async () => {
    await go(`catalog/products/${WORKSHOP}`);
    await heading('Onboarding workshop').waitFor();
    await page.getByLabel('Title').fill('Zephyr onboarding workshop');
    await page.getByLabel('Description (Markdown)').fill('Half a day with our **team**.');
    await page.getByRole('button', { name: 'Save content' }).click();
    await page.getByText('Saved.').waitFor();
    const publish = page.getByRole('button', { name: 'Publish', exact: true });
    if (await publish.isVisible()) {
      await publish.click();
      await page.getByRole('button', { name: 'Unpublish' }).waitFor();
    }
    await expectAccessible(page, 'product');
    await screenshot(page, 'product');
    await go('catalog/search');
    await page.getByLabel('Search the published catalog').fill('zephyr');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'Zephyr onboarding workshop' }).waitFor();
    await expectAccessible(page, 'catalog search');
  });

  it('invites a viewer, who can read but whose writes are refused in the page and by the API', async () => {
    await go('team');
    await page.getByLabel(/^Email/).fill('viewer@example.com');
    // The role select starts at `viewer`.
    await page.getByRole('button', { name: 'Invite' }).click();
    const invitation = (await page.getByTestId('once-secret').textContent()) ?? '';
    expect(invitation).toMatch(/\/console\/#\/link\//);
    await page.getByRole('cell', { name: 'viewer@example.com', exact: true }).waitFor();
    await expectAccessible(page, 'team');
    await screenshot(page, 'team');

    const viewerContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const viewer = await viewerContext.newPage();
    await viewer.goto(invitation);
    await viewer.getByLabel('New password').fill('viewer-password-123');
    await viewer.getByRole('button', { name: 'Continue' }).click();
    await viewer.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await expectAccessible(viewer, 'overview on a phone');
    await screenshot(viewer, 'overview-phone');
    // The page offers no writes: no endpoint form, no key issuing, no refund.
    await viewer.goto(`${server.url}/console/#/webhooks`);
    await viewer.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    expect(await viewer.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
    await viewer.goto(`${server.url}/console/#/payments/payment/${fixture.paymentId}`);
    await viewer.getByRole('heading', { level: 1, name: /Payment/ }).waitFor();
    expect(await viewer.getByRole('button', { name: 'Refund' }).count()).toBe(0);
    // The API refuses the write itself, with the session's CSRF token and all.
    const refused = await viewer.evaluate(async () => {
      const session = (await (await fetch('/api/v1/console/session')).json()) as {
        data: { csrfToken: string; user: { role: string } };
      };
      const res = await fetch('/api/v1/webhooks', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.data.csrfToken },
        body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks', events: ['*'] }),
      });
      return {
        role: session.data.user.role,
        status: res.status,
        body: (await res.json()) as { code: string },
      };
    });
    expect(refused.role).toBe('viewer');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    await viewerContext.close();
  }, 60_000);

  it('passes an axe check on every page', async () => {
    const pages = [
      'customers',
      `customers/${demo.accountId}`,
      'orders',
      'subscriptions',
      'payments',
      'payments/refunds',
      'checkouts',
      'catalog',
      'catalog/content',
      'catalog/partners',
      'webhooks',
      'developers/audit',
      'developers/errors',
      'settings',
    ];
    for (const hash of pages) {
      await go(hash);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.locator('[aria-label="Loading"]').first().waitFor({ state: 'detached' });
      await expectAccessible(page, hash);
      if (['customers', 'catalog', 'settings', 'developers/audit'].includes(hash))
        await screenshot(page, hash.replace('/', '-'));
    }
  }, 120_000);
});
