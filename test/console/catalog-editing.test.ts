import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, type startServerProcess } from '../support/service-processes.js';
import {
  browserSkipReason,
  CHROMIUM,
  callApi,
  expectAccessible,
  screenshot,
  signInOwner,
  startConsoleServer,
} from './browser.js';

// The console's catalog editing in headless Chromium against a started server (demo tenant):
// content pages created, edited, restored and deleted (read back through the public content
// route), a product's media added, reordered and removed, a partner renamed and disabled, and a
// viewer who is offered none of these writes (and whom the API refuses).

interface Demo {
  keys: { read: string; commerce: string; admin: string };
}

const WORKSHOP = '0190a000-0000-7000-8000-000000000005';
let server: Awaited<ReturnType<typeof startServerProcess>>;
let browser: Browser;
let page: Page;
let demo: Demo;
let tenantId: string;

const apiCall = (method: string, path: string, body?: unknown) =>
  callApi(server.url, demo.keys.admin, method, path, body);

/** The published page as buyers read it: getPublicContent, no key. */
async function publicPage(key: string) {
  const res = await fetch(`${server.url}/api/v1/t/${tenantId}/content/${key}?locale=en`);
  return { status: res.status, body: (await res.json()) as { data?: { title: string; body: string } } };
}

const go = (hash: string) => page.goto(`${server.url}/console/#/${hash}`);
const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });

describe.skipIf(browserSkipReason !== undefined)('catalog editing in the web console', () => {
  beforeAll(async () => {
    const started = await startConsoleServer();
    server = started.server;
    demo = started.demo;
    tenantId = (await apiCall('GET', '/manifest')).tenant.id;
    // The workshop's English content, whose media the console edits.
    await apiCall('PUT', `/admin/products/${WORKSHOP}/content/en`, { title: 'Onboarding workshop' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const owner = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await owner.newPage();
    page.on('pageerror', (error) => console.warn(`console page error: ${error.message}`));
    await signInOwner(page, started.signInLink);
  }, 180_000);
  afterEach(async (context) => {
    if (context.task.result?.state !== 'fail' || !page) return;
    const file = join(tmpdir(), `console-failed-${context.task.name.replace(/\W+/g, '-')}.png`);
    await page.screenshot({ path: file }).catch(() => undefined);
    console.warn(`console test failed: screenshot at ${file}`);
  });
  afterAll(async () => {
    await browser?.close();
    await cleanUpProcesses();
  });

  it('creates a content page, edits it, restores a version and deletes it', async () => {
    await go('catalog/content');
    await page.getByRole('link', { name: 'New content page' }).click();
    await heading('New content page').waitFor();
    // A key the API refuses: its error is shown at the Key field.
    const key = page.getByLabel(/^Key/);
    await key.fill('Shipping Policy');
    await page.getByLabel(/^Title/).fill('Shipping');
    await page.getByLabel('Body (Markdown)').fill('# Shipping\n\nWe ship within two days.');
    await page.getByLabel('Published').check();
    await page.getByRole('button', { name: 'Create page' }).click();
    const keyError = page.getByText(/^must match pattern/);
    await keyError.waitFor();
    expect(await key.getAttribute('aria-invalid')).toBe('true');
    expect(await key.getAttribute('aria-describedby')).toContain(await keyError.getAttribute('id'));
    await expectAccessible(page, 'new content page with an error');
    await key.fill('shipping');
    await page.getByRole('button', { name: 'Create page' }).click();
    await heading('Shipping').waitFor();
    let read = await publicPage('shipping');
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      title: 'Shipping',
      body: '# Shipping\n\nWe ship within two days.',
    });

    await page.getByLabel(/^Title/).fill('Shipping and delivery');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved: version 2.').waitFor();
    expect((await publicPage('shipping')).body.data?.title).toBe('Shipping and delivery');
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByText('Version 1 restored: version 3.').waitFor();
    await page.getByRole('cell', { name: '3 (current)' }).waitFor();
    read = await publicPage('shipping');
    expect(read.body.data?.title).toBe('Shipping');
    await page.evaluate('window.scrollTo(0, 0)');
    await expectAccessible(page, 'content page editor');
    await screenshot(page, 'content-editor');

    await page.getByRole('button', { name: 'Delete page' }).click();
    // (The dialog is the partner dialog's kind, checked by axe below.)
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await heading('Catalog').waitFor();
    expect((await publicPage('shipping')).status).toBe(404);
  }, 60_000);

  it('adds, reorders and removes a product’s media, saved through the API', async () => {
    const media = async () =>
      (await apiCall('GET', `/admin/products/${WORKSHOP}/content`)).locales.find(
        (l: { locale: string }) => l.locale === 'en',
      ).media;
    await go(`catalog/products/${WORKSHOP}`);
    await heading('Onboarding workshop').waitFor();
    const add = page.getByRole('form', { name: 'Add media' });
    const addItem = async (url: string, type: string, alt: string) => {
      await add.getByLabel(/^New media URL/).fill(url);
      await add.getByLabel('New media type').selectOption(type);
      await add.getByLabel('New media alt text').fill(alt);
      await add.getByRole('button', { name: 'Add to the list' }).click();
    };
    await addItem('https://cdn.example.com/room.jpg', 'image', 'The workshop room');
    await addItem('https://cdn.example.com/intro.mp4', 'video', 'Introduction');
    await addItem('http://cdn.example.com/plain.jpg', 'image', 'Not https');
    await page.getByRole('button', { name: 'Move media 2 up' }).click();
    await expectAccessible(page, 'product media editor');
    // The API refuses the http URL: its error is at that item's URL field.
    await page.getByRole('button', { name: 'Save media' }).click();
    const third = page.getByRole('group', { name: 'Media 3' }).getByLabel(/^URL/);
    await expect.poll(() => third.getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('button', { name: 'Remove media 3' }).click();
    // Text being edited survives saving the media (which reloads the content).
    const title = page.getByLabel('Title', { exact: true });
    await title.fill('Onboarding workshop, revised');
    const { version } = await apiCall('GET', `/admin/products/${WORKSHOP}/content`);
    await page.getByRole('button', { name: 'Save media' }).click();
    await expect.poll(media).toEqual([
      { url: 'https://cdn.example.com/intro.mp4', type: 'video', alt: 'Introduction', position: 0 },
      { url: 'https://cdn.example.com/room.jpg', type: 'image', alt: 'The workshop room', position: 1 },
    ]);
    // Once the reloaded content has rendered (its new version shown), the draft is still as typed.
    await page.getByText(`Version ${version + 1}`, { exact: true }).waitFor();
    expect(await title.inputValue()).toBe('Onboarding workshop, revised');
    expect(
      (await apiCall('GET', `/admin/products/${WORKSHOP}/content`)).locales.find(
        (l: { locale: string }) => l.locale === 'en',
      ).title,
    ).toBe('Onboarding workshop');
    await page.getByRole('button', { name: 'Remove media 1' }).click();
    await page.getByRole('button', { name: 'Save media' }).click();
    await expect
      .poll(media)
      .toEqual([
        { url: 'https://cdn.example.com/room.jpg', type: 'image', alt: 'The workshop room', position: 0 },
      ]);
  }, 60_000);

  it('renames a partner and disables it', async () => {
    const partner = await apiCall('POST', '/admin/partners', { name: 'Acme Reseller', code: 'acme' });
    await go('catalog/partners');
    await page.getByRole('button', { name: 'Edit Acme Reseller' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^Partner name/).fill('Acme Resellers Ltd');
    await expectAccessible(page, 'partner edit dialog');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'Acme Resellers Ltd', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Disable Acme Resellers Ltd' }).click();
    await page.getByRole('button', { name: 'Enable Acme Resellers Ltd' }).waitFor();
    expect(await apiCall('GET', `/admin/partners/${partner.id}`)).toMatchObject({
      name: 'Acme Resellers Ltd',
      code: 'acme',
      status: 'inactive',
    });
    await expectAccessible(page, 'partners');
  });

  it('offers a viewer none of these writes, and the API refuses them', async () => {
    await apiCall('PUT', '/admin/content/faq', { title: 'FAQ', body: 'Questions.', status: 'published' });
    await apiCall('POST', '/admin/partners', { name: 'Beta Market', code: 'beta' });
    const invited = await apiCall('POST', '/admin/users', {
      email: 'catalog-viewer@example.com',
      role: 'viewer',
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const viewer = await context.newPage();
    await viewer.goto(invited.invitation.url);
    await viewer.getByLabel('New password').fill('viewer-password-123');
    await viewer.getByRole('button', { name: 'Continue' }).click();
    await viewer.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const visit = async (hash: string, title: string) => {
      await viewer.goto(`${server.url}/console/#/${hash}`);
      await viewer.getByRole('heading', { level: 1, name: title }).waitFor();
      await viewer.locator('[aria-label="Loading"]').first().waitFor({ state: 'detached' });
    };
    const buttons = (name: string | RegExp) => viewer.getByRole('button', { name }).count();

    await visit('catalog/content', 'Catalog');
    expect(await viewer.getByRole('link', { name: 'New content page' }).count()).toBe(0);
    await visit('catalog/content/faq/en', 'FAQ');
    await viewer.getByRole('cell', { name: '1 (current)' }).waitFor();
    for (const name of ['Save changes', 'Delete page', /^Restore/]) expect(await buttons(name)).toBe(0);
    expect(await viewer.getByLabel(/^Title/).getAttribute('readonly')).not.toBeNull();
    await expectAccessible(viewer, 'content page for a viewer');
    await visit(`catalog/products/${WORKSHOP}`, 'Onboarding workshop');
    for (const name of ['Save media', 'Add to the list', /^Remove media/])
      expect(await buttons(name)).toBe(0);
    await visit('catalog/partners', 'Catalog');
    await viewer.getByRole('cell', { name: 'Beta Market', exact: true }).waitFor();
    for (const name of [/^Edit /, /^Disable /, 'Add partner']) expect(await buttons(name)).toBe(0);

    const refused = await viewer.evaluate(async () => {
      const session = (await (await fetch('/api/v1/console/session')).json()) as {
        data: { csrfToken: string };
      };
      const res = await fetch('/api/v1/admin/content/faq', {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.data.csrfToken },
        body: JSON.stringify({ status: 'draft' }),
      });
      return { status: res.status, code: ((await res.json()) as { code: string }).code };
    });
    expect(refused).toEqual({ status: 403, code: 'forbidden' });
    await context.close();
  }, 60_000);
});
