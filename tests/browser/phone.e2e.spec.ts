/**
 * The analyze page on a phone (390 px): after Start the page scrolls to the job panel; when the
 * job ends, the same video is not sent again by a second tap on Start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startBrowserSuite, withBrowser, type BrowserServer } from '../helpers/browser.js';
import { TEXT, register, startAnalysis, watchJobToDone } from './flows.js';

let suite: Awaited<ReturnType<typeof startBrowserSuite>>;
let server: BrowserServer;
let video: string;

beforeAll(async () => {
  suite = await startBrowserSuite({ video: 'telefon.mp4' });
  ({ server, video } = suite);
}, 180_000);
afterAll(async () => suite?.stop());

describe('the analyze page on a phone', () => {
  it('scrolls to the job panel after Start and needs "analyze again" to re-send the video', async () => {
    const t = TEXT.tr;
    await withBrowser(
      'phone analyze',
      async ({ page }) => {
        await register(page, server.url, t, { email: 'telefon@example.com', password: 'correct horse battery' });
        const panel = page.locator('#job-panel');
        await startAnalysis(page, t, video);
        // the panel comes into view (its top near the top of the screen, below the sticky header)
        await expect.poll(async () => (await panel.boundingBox())?.y ?? 9999, { timeout: 10_000 }).toBeLessThan(200);
        await expect.poll(async () => (await panel.boundingBox())?.y ?? -1).toBeGreaterThanOrEqual(0);
        await watchJobToDone(page, t, 90_000);
        const start = page.getByRole('button', { name: t.start });
        expect(await start.isDisabled()).toBe(true);
        await page.getByRole('button', { name: 'Yeniden analiz et' }).click();
        expect(await start.isEnabled()).toBe(true);
      },
      { viewport: { width: 390, height: 844 } },
    );
  }, 150_000);
});
