/**
 * Background Sync in a real browser (Debian's Chromium) against the real server process: the offline
 * upload queue, resumable (tus) uploads, the service worker and the manifest.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../../services/analysis/test/fixtures/videos.js';
import { ensureWebBuilt, launchChromium, loggedInContext, newUser, startServer, type PwaServer } from './pwa-helpers.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let video: string;
let server: PwaServer;
let browser: Browser;

beforeAll(async () => {
  fx = await videoFixtures();
  [, video] = await Promise.all([ensureWebBuilt(), fx.photos('saha-direk.mp4', 12).then((v) => v.path)]);
  server = await startServer();
  browser = await launchChromium();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await fx?.dispose();
});

/** The page's navigator, as used in page functions (this file is type-checked without the DOM library). */
interface BrowserNavigator {
  onLine: boolean;
  serviceWorker: { controller: { state: string } | null };
}

/** Waits until the service worker is active and controls the page (shell precached). */
async function swControls(page: Page): Promise<void> {
  await page.waitForFunction(() => (globalThis as unknown as { navigator: BrowserNavigator }).navigator.serviceWorker.controller?.state === 'activated', undefined, { timeout: 30_000 });
}

/** Chooses the video, uniform sampling and 2 composites, and presses start. */
async function startAnalysis(page: Page, path: string): Promise<void> {
  await page.getByLabel('Video seçin').setInputFiles(path);
  // Click the segment's visible label as a person would (a forced click on the hidden input can land
  // on the offline banner that appears when the connection drops).
  const uniform = page.getByRole('radio', { name: 'Eşit aralıklı' });
  await page.locator('label.segment', { hasText: 'Eşit aralıklı' }).click();
  await expect.poll(() => uniform.isChecked()).toBe(true);
  await page.getByRole('button', { name: 'Gelişmiş ayarlar' }).click();
  const composites = page.getByRole('slider', { name: /Kompozit sayısı/ });
  await composites.focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => composites.inputValue()).toBe('2');
  await page.getByRole('button', { name: 'Analizi başlat' }).click();
}

const queueList = (page: Page) => page.getByRole('list', { name: 'Yüklenmeyi bekleyenler' });

describe('field mode (PWA): Background Sync', () => {
  it('Background Sync with no app window open: the service worker uploads the queue itself, the job is created and the item leaves the queue', async () => {
    const user = await newUser(server.url);
    const context = await loggedInContext(browser, user.token);
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/dashboard`);
      await page.getByRole('button', { name: 'Analizi başlat' }).waitFor();
      await swControls(page);

      await context.setOffline(true);
      await startAnalysis(page, video);
      await expect.poll(() => queueList(page).getByRole('listitem').count()).toBe(1);

      // The service worker's registration, for the CDP sync event.
      const cdp = await context.newCDPSession(page);
      const registrations = new Map<string, string>();
      cdp.on('ServiceWorker.workerRegistrationUpdated', (event: { registrations: Array<{ registrationId: string; scopeURL: string; isDeleted: boolean }> }) => {
        for (const r of event.registrations) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
      });
      await cdp.send('ServiceWorker.enable');
      await expect.poll(() => registrations.get(`${server.url}/`)).toBeTruthy();

      // No app window any more: only the service worker can upload now.
      await page.goto('about:blank');
      await context.setOffline(false);
      const uploadsBefore = server.logs.filter((l) => l.msg === 'resumable upload chunk stored').length;
      const jobsOf = () =>
        fetch(`${server.url}/jobs`, { headers: { authorization: `Bearer ${user.token}` } }).then((r) => r.json() as Promise<Array<{ job_id: string; input_filename: string; status: string }>>);
      expect(await jobsOf()).toHaveLength(0);

      // The worker must see the network again before the sync event (emulation reaches it late).
      const worker = context.serviceWorkers()[0]!;
      await expect
        .poll(() => worker.evaluate(() => (globalThis as unknown as { navigator: { onLine: boolean } }).navigator.onLine), { timeout: 15_000 })
        .toBe(true);
      await cdp.send('ServiceWorker.dispatchSyncEvent', { origin: server.url, registrationId: registrations.get(`${server.url}/`)!, tag: 'baret-upload-queue', lastChance: false });
      // Generous: a sync Chromium fired by itself while the context was still offline may hold the queue until its requests time out.
      await expect.poll(async () => (await jobsOf()).length, { timeout: 120_000 }).toBe(1);
      expect((await jobsOf())[0]).toMatchObject({ input_filename: 'saha-direk.mp4' });
      // The bytes went through the tus endpoint, in chunks, while no page was open.
      expect(server.logs.filter((l) => l.msg === 'resumable upload chunk stored').length).toBeGreaterThan(uploadsBefore);
      expect(context.pages().map((p) => p.url())).toEqual(['about:blank']);

      // The app opens again: the item has left the queue, and no second job is made.
      await page.goto(`${server.url}/dashboard`);
      await page.getByRole('button', { name: 'Analizi başlat' }).waitFor();
      await page.waitForTimeout(1500);
      expect(await queueList(page).count()).toBe(0);
      expect(await jobsOf()).toHaveLength(1);
      await page.goto(`${server.url}/dashboard/history`);
      await page.getByText('saha-direk.mp4').first().waitFor();
    } finally {
      await context.close();
    }
  }, 180_000);
});
