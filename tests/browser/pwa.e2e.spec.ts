/**
 * Field mode in a real browser (Debian's Chromium) against the real server process: the offline
 * upload queue, resumable (tus) uploads, the service worker and the manifest.
 */
import { statSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../../services/analysis/test/fixtures/videos.js';
import { ensureWebBuilt, launchChromium, loggedInContext, newUser, persistentLoggedInContext, startServer, type PwaServer } from './pwa-helpers.js';

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

/** A new user's logged-in context on /dashboard, with the service worker in control. */
async function openDashboard(): Promise<{ user: { email: string; token: string }; context: BrowserContext; page: Page }> {
  const user = await newUser(server.url);
  const context = await loggedInContext(browser, user.token);
  const page = await context.newPage();
  await page.goto(`${server.url}/dashboard`);
  await page.getByRole('button', { name: 'Analizi başlat' }).waitFor();
  await swControls(page);
  return { user, context, page };
}

const queueList = (page: Page) => page.getByRole('list', { name: 'Yüklenmeyi bekleyenler' });

describe('field mode (PWA)', () => {
  it('queues a video started offline, keeps it across an offline reload, and uploads it when back online', async () => {
    const { user, context, page } = await openDashboard();
    try {

      await context.setOffline(true);
      await startAnalysis(page, video);
      await page.getByText('Bağlantı yok: video ve ayarları bu cihazda saklandı', { exact: false }).waitFor();
      const item = queueList(page).getByRole('listitem');
      await expect.poll(() => item.count()).toBe(1);
      await expect.poll(() => item.textContent()).toContain('saha-direk.mp4');
      await expect.poll(() => item.textContent()).toContain('Bağlantı bekleniyor');

      // Still offline: the service worker serves the app, the session and the queue survive.
      const reloaded = await page.reload();
      expect(reloaded?.fromServiceWorker()).toBe(true);
      await expect.poll(() => queueList(page).getByRole('listitem').textContent(), { timeout: 15_000 }).toContain('saha-direk.mp4');
      expect(await page.evaluate(() => (globalThis as unknown as { navigator: BrowserNavigator }).navigator.onLine)).toBe(false);

      // Back online: the queue uploads (tus), the job is created and runs to the end.
      await context.setOffline(false);
      await expect.poll(() => queueList(page).count(), { timeout: 30_000 }).toBe(0);
      await expect.poll(() => page.locator('.job-panel').textContent(), { timeout: 90_000 }).toContain('Tamamlandı');

      const jobs = await fetch(`${server.url}/jobs`, { headers: { authorization: `Bearer ${user.token}` } }).then((r) => r.json() as Promise<Array<{ input_filename: string; status: string }>>);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({ input_filename: 'saha-direk.mp4', status: 'done' });
      await page.goto(`${server.url}/dashboard/history`);
      await page.getByText('saha-direk.mp4').first().waitFor();
    } finally {
      await context.close();
    }
  }, 180_000);

  it('Background Sync with no app window open: the service worker uploads the queue itself, the job is created and the item leaves the queue', async () => {
    const { user, context, page } = await openDashboard();
    try {

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

  it('resumes an upload cut off part-way from the server offset: no byte is sent twice', async () => {
    const user = await newUser(server.url);
    // Service workers off here, so that page.route sees every request of the page.
    const context: BrowserContext = await loggedInContext(browser, user.token, { serviceWorkers: 'block' });
    try {
      const page = await context.newPage();
      const requests: string[] = [];
      let aborted: number | null = null;
      let uploadId = '';
      await page.route('**/uploads**', async (route) => {
        const request = route.request();
        if (request.method() !== 'POST') uploadId = new URL(request.url()).pathname.split('/').pop() ?? '';
        const offset = Number((await request.allHeaders())['upload-offset'] ?? '0');
        requests.push(`${request.method()} ${offset}`);
        // The connection drops during the second chunk.
        if (request.method() === 'PATCH' && offset > 0 && aborted === null) {
          aborted = offset;
          return route.abort('connectionreset');
        }
        return route.continue();
      });
      await page.goto(`${server.url}/dashboard`);
      await page.getByRole('button', { name: 'Analizi başlat' }).waitFor();
      await context.setOffline(true);
      await startAnalysis(page, video);
      await expect.poll(() => queueList(page).getByRole('listitem').count()).toBe(1);
      await context.setOffline(false);
      await expect.poll(() => queueList(page).count(), { timeout: 60_000 }).toBe(0);
      await expect.poll(() => page.locator('.job-panel').textContent(), { timeout: 90_000 }).toContain('Tamamlandı');

      const size = statSync(video).size;
      expect(aborted).toBeGreaterThan(0);
      // After the cut: the client asked the server where to continue (HEAD), then went on from there.
      const cut = requests.indexOf(`PATCH ${aborted}`);
      expect(requests.slice(cut + 1, cut + 3)).toEqual(['HEAD 0', `PATCH ${aborted}`]);
      expect(requests.filter((r) => r === 'PATCH 0')).toHaveLength(1);

      // What the server received, chunk by chunk (its logs): contiguous, each byte once.
      const chunks = server.logs
        .filter((l) => l.msg === 'resumable upload chunk stored' && l.upload_id === uploadId)
        .map((l) => ({ offset: Number(l.offset), bytes: Number(l.bytes) }));
      expect(chunks.length).toBeGreaterThanOrEqual(3);
      let expected = 0;
      for (const chunk of chunks) {
        expect(chunk.offset).toBe(expected);
        expected += chunk.bytes;
      }
      expect(expected).toBe(size);
      expect(chunks.reduce((sum, c) => sum + c.bytes, 0)).toBe(size);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('passes the installability checks Chromium reports, with a manifest for a standalone app starting at /dashboard', async () => {
    const user = await newUser(server.url);
    const profile = await persistentLoggedInContext(user.token);
    try {
      const page = profile.context.pages()[0] ?? (await profile.context.newPage());
      await page.goto(`${server.url}/dashboard`);
      await page.getByRole('button', { name: 'Analizi başlat' }).waitFor();
      await swControls(page);
      const cdp = await profile.context.newCDPSession(page);
      const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: unknown[] };
      expect(installabilityErrors).toEqual([]);
      const manifest = (await (await fetch(`${server.url}/manifest.webmanifest`)).json()) as Record<string, unknown>;
      expect(manifest).toMatchObject({ display: 'standalone', start_url: '/dashboard', short_name: 'Baret', theme_color: '#0f172a' });
      expect((manifest.icons as Array<{ sizes: string }>).map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    } finally {
      await profile.close();
    }
  }, 120_000);

  it('serves every route offline after one online visit, but never answers an API path with the app', async () => {
    const { context, page } = await openDashboard();
    try {

      await context.setOffline(true);
      const routes: Array<[string, RegExp]> = [
        ['/how-it-works', /Baret/],
        ['/ppe-equipment', /Baret/],
        ['/pricing', /Baret/],
        ['/contact', /Baret/],
        ['/dashboard', /Analizi başlat/],
        ['/dashboard/history', /Baret/],
        ['/dashboard/api-keys', /Baret/],
        ['/dashboard/profile', /Baret/],
        ['/login', /Baret/],
        ['/', /Baret/],
      ];
      for (const [path, text] of routes) {
        const response = await page.goto(`${server.url}${path}`);
        expect(response?.status(), path).toBe(200);
        expect(response?.fromServiceWorker(), path).toBe(true);
        await expect.poll(() => page.locator('#root').innerText(), { timeout: 10_000, message: path }).toMatch(text);
      }
      await expect(page.goto(`${server.url}/openapi.json`)).rejects.toThrow(/ERR_INTERNET_DISCONNECTED|ERR_FAILED/);
    } finally {
      await context.close();
    }
  }, 120_000);
});
