/**
 * Acceptance tests of "The web app" in a real browser (Debian's Chromium through playwright-core)
 * against the real standalone server in its own process, in Turkish (the default language).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { videoFixtures } from '../../services/analysis/test/fixtures/videos.js';
import { ensureWebBuilt, startServerForBrowser, withBrowser, type BrowserServer } from '../helpers/browser.js';
import { TEXT, apiKeyRoundTrip, checkHistory, checkResult, logout, register, startAnalysis, visible, watchJobToDone } from './flows.js';

const t = TEXT.tr;
let server: BrowserServer;
let fixtures: Awaited<ReturnType<typeof videoFixtures>>;
let video: string;

beforeAll(async () => {
  const built = ensureWebBuilt();
  fixtures = await videoFixtures();
  video = (await fixtures.photos('saha-ziyareti.mp4', 8)).path;
  await built;
  server = await startServerForBrowser({ BARET_ADMIN_EMAILS: 'admin@baret.test' });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await fixtures?.dispose();
});

describe('the web app in Turkish, against the real server', () => {
  it('register → analyze a video → live timeline → result → history → API key → log out', async () => {
    await withBrowser('tr-main-flow', async ({ page }) => {
      const user = { email: 'ayse.yilmaz@baret.test', password: 'dogru at pil zımba', fullName: 'Ayşe Yılmaz' };
      await register(page, server.url, t, user);

      await startAnalysis(page, t, video);
      const { statuses, liveEvents } = await watchJobToDone(page, t);
      const afterStart = statuses.slice(statuses.findIndex((s) => s !== t.ready));
      expect([t.queued, t.running]).toContain(afterStart[0]);
      expect(afterStart.at(-1)).toBe(t.done);
      expect(liveEvents.some((e) => e.startsWith(t.jobQueuedEvent))).toBe(true);
      // Once done, the timeline folds away; opening it shows the whole run.
      await page.getByText(t.timeline, { exact: true }).click();
      await visible(page.getByRole('list', { name: t.timeline }).getByText(t.jobCompletedEvent));
      await checkResult(page, t);
      await checkHistory(page, t, 'saha-ziyareti.mp4');
      await apiKeyRoundTrip(page, server.url, t, user.email);
      await logout(page, server.url, t);
    });
  }, 120_000);
});
