/**
 * The manager's dashboard and the crew's Record button (issue 28) in Chromium, against the real
 * server, on the demo organisation `npm run admin -- seed-demo` makes (3 sites, 4 crews, 200 jobs
 * over 12 weeks): the dashboard in Turkish and English shows the chart, the ranking and the latest
 * violations; a filter changes the figures and survives a reload; the CSV keeps its Turkish letters;
 * axe finds no serious issue; on a phone, Record (a fake camera) puts the clip into the upload
 * queue, which uploads it as a job with the chosen site, crew and work order.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DEMO_MANAGER, DEMO_PASSWORD } from '../../services/standalone/src/seedDemo.js';
import { startDemoOrgServer, withBrowser } from '../helpers/browser.js';
import { api, type RunningBaret } from '../helpers/process.js';
import { TEXT, login, visible } from './flows.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const DAY = 86_400_000;

let demo: Awaited<ReturnType<typeof startDemoOrgServer>>;
let server: RunningBaret;

beforeAll(async () => {
  demo = await startDemoOrgServer();
  server = demo.server;
}, 300_000);
afterAll(async () => demo?.stop());

/** Serious and critical axe violations on the page as it is now. */
async function axe(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const g = globalThis as unknown as { axe: { run: (c: unknown, o: object) => Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }> }> }; document: unknown };
    return (await g.axe.run(g.document, { resultTypes: ['violations'] })).violations;
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

const range = () => ({ from: new Date(Date.now() - 90 * DAY).toISOString().slice(0, 10), to: new Date().toISOString().slice(0, 10) });

async function openDashboard(page: Page, lang: 'tr' | 'en') {
  const { from, to } = range();
  await page.goto(`${server.url}/login?redirectTo=${encodeURIComponent(`/dashboard/compliance?from=${from}&to=${to}`)}`);
  await login(page, TEXT[lang], { email: DEMO_MANAGER, password: DEMO_PASSWORD });
  await visible(page.getByRole('heading', { level: 1, name: lang === 'tr' ? 'Uyum' : 'Compliance' }));
  await visible(page.getByTestId('compliance-chart'));
}

const kpi = (page: Page, id: string) => page.getByTestId(id).innerText();

describe('the compliance dashboard', () => {
  it('shows the chart, the ranking and the latest violations in Turkish; a filter changes the figures and survives a reload; the CSV keeps Turkish letters; axe finds nothing serious', async () => {
    await withBrowser(
      'compliance tr',
      async ({ page }) => {
        await openDashboard(page, 'tr');
        expect(await kpi(page, 'kpi-jobs')).toBe('200');
        expect(await kpi(page, 'kpi-share')).toMatch(/^%\d+$/); // Turkish percent: the sign first
        expect(await page.getByTestId('compliance-chart').getAttribute('aria-label')).toMatch(/hafta/);
        expect(await page.getByTestId('compliance-chart').locator('rect.chart-bar').count()).toBeGreaterThanOrEqual(12);
        const [sites, crews] = [page.getByTestId('ranking').first(), page.getByTestId('ranking').nth(1)];
        expect(await sites.locator('tbody tr').count()).toBe(3);
        expect(await crews.locator('tbody tr').count()).toBe(4);
        await visible(sites.getByRole('rowheader', { name: 'Kadıköy Trafo Merkezi' }));
        expect(await sites.locator('svg.sparkline').count()).toBe(3);
        const latest = page.getByTestId('latest-violations').locator('li');
        expect(await latest.count()).toBeGreaterThan(0);
        await expect.poll(() => latest.first().locator('img').count()).toBe(1);
        expect(await page.getByTestId('by-equipment').innerText()).toMatch(/baret/i);
        // The table alternative of the chart
        await page.getByText('Tablo olarak göster').click();
        expect(await page.locator('details.chart-table tbody tr').count()).toBeGreaterThanOrEqual(12);

        // A site filter: fewer jobs, kept in the URL and through a reload.
        await page.getByLabel('Saha', { exact: true }).selectOption({ label: 'Bornova Direk Sahası' });
        await expect.poll(() => kpi(page, 'kpi-jobs')).not.toBe('200');
        const filtered = await kpi(page, 'kpi-jobs');
        expect(Number(filtered)).toBeGreaterThan(0);
        expect(page.url()).toContain('site_id=');
        await page.reload();
        await visible(page.getByTestId('compliance-chart'));
        await expect.poll(() => kpi(page, 'kpi-jobs')).toBe(filtered);
        expect(await page.getByLabel('Saha', { exact: true }).locator('option:checked').innerText()).toBe('Bornova Direk Sahası');
        expect(await page.getByTestId('ranking').first().locator('tbody tr').count()).toBe(1);

        // The CSV: a BOM, then Turkish letters as they are.
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'CSV indir' }).click()]);
        const bytes = readFileSync((await download.path())!);
        expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
        const text = bytes.subarray(3).toString('utf8');
        expect(text.split('\r\n')[0]).toMatch(/^Tarih \(UTC\);Saha;Ekip;İş emri;İş türü;Durum;/);
        expect(text).toContain('Bornova Direk Sahası');
        expect(text).not.toContain('Kadıköy Trafo Merkezi'); // the filter applies to the CSV too

        for (const theme of ['dark', 'light']) {
          await page.evaluate((value) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('amp-dashboard-theme', value), theme);
          for (const path of ['/dashboard/compliance', '/dashboard/organisation']) {
            await page.goto(`${server.url}${path}`);
            await page.getByRole('heading', { level: 1 }).first().waitFor();
            if (path.endsWith('compliance')) await visible(page.getByTestId('compliance-chart'));
            else await visible(page.getByRole('heading', { name: 'Sahalar' }));
            expect(await axe(page), `${theme} ${path}`).toEqual([]);
          }
        }
      },
      { locale: 'tr-TR', bypassCSP: true },
    );
  }, 180_000);

  it('reads in English, with English number formats', async () => {
    await withBrowser(
      'compliance en',
      async ({ page }) => {
        await page.goto(server.url);
        await page.getByRole('group', { name: 'Dil' }).getByRole('button', { name: 'EN English' }).click();
        await openDashboard(page, 'en');
        expect(await kpi(page, 'kpi-jobs')).toBe('200');
        expect(await kpi(page, 'kpi-share')).toMatch(/^\d+%$/);
        await visible(page.getByRole('heading', { name: 'Sites ranked' }));
        await visible(page.getByRole('heading', { name: 'Latest violations' }));
        expect(await page.getByTestId('by-equipment').innerText()).toMatch(/hard hat|helmet/i);
        expect(await page.getByTestId('latest-violations').locator('li').count()).toBeGreaterThan(0);
      },
      { locale: 'tr-TR' },
    );
  }, 120_000);
});

describe('Record on a phone', () => {
  it('records with the camera into the upload queue, which uploads it with the site, crew and work order', async () => {
    const t = TEXT.tr;
    await withBrowser(
      'record phone',
      async ({ page }) => {
        await page.goto(`${server.url}/login`);
        await login(page, t, { email: 'ekip2@example.com', password: DEMO_PASSWORD });
        await visible(page.getByRole('heading', { name: t.analyzeTitle, level: 1 }));
        // Site, crew and work order have a card of their own: they go with recordings and uploads alike (issue 40).
        const details = page.getByRole('region', { name: 'İş bilgileri' });
        // "Loading…" while the organisation's sites load, then the choice (never "no sites yet" on the way).
        const firstSite = async () => details.getByLabel('Saha').locator('option').first().innerText();
        expect(['Yükleniyor…', 'Saha seçin (isteğe bağlı)']).toContain(await firstSite());
        await expect.poll(firstSite, { timeout: 30_000 }).toBe('Saha seçin (isteğe bağlı)');
        await details.getByLabel('Saha').selectOption({ label: 'Çankaya Dağıtım Hattı' });
        await details.getByLabel('Ekip').selectOption({ label: 'Trafo Ekibi' });
        await details.getByLabel('İş emri (isteğe bağlı)').fill('İE-2026-ÇAĞ-7');
        const card = page.locator('section.record-card');
        await card.getByRole('button', { name: 'Kaydet' }).click();
        const dialog = page.getByRole('dialog', { name: 'Kaydediliyor…' });
        await visible(dialog);
        // The elapsed time counts up while recording.
        await expect.poll(async () => (await dialog.locator('.record-time').innerText()) >= '00:02', { timeout: 10_000 }).toBe(true);
        await page.getByRole('button', { name: 'Durdur ve sıraya ekle' }).click();
        // The card follows the clip: in the queue, then uploaded with its analysis started (not "in the queue" forever).
        await visible(card.getByText(/yüklendi; analiz başladı/), 60_000);
        expect(await card.getByText(/yükleme kuyruğunda/).count()).toBe(0);
        await visible(card.getByRole('link', { name: 'Analizi aç' }));

        // The queue uploads it: a job of this member, with where and by whom it was recorded.
        const { body: tokenBody } = await api<{ access_token: string }>(server.url, '/auth/login', { method: 'POST', body: JSON.stringify({ email: 'ekip2@example.com', password: DEMO_PASSWORD }) });
        let job: { site_id: string | null; crew_id: string | null; work_order: string | null; input_filename: string } | undefined;
        await expect
          .poll(
            async () => {
              const { body } = await api<Array<typeof job & { input_filename: string }>>(server.url, '/jobs?limit=5', { token: tokenBody.access_token });
              job = body.find((j) => j!.input_filename.endsWith('.webm'));
              return job !== undefined;
            },
            { timeout: 60_000, interval: 500 },
          )
          .toBe(true);
        expect(job!.work_order).toBe('İE-2026-ÇAĞ-7');
        const { body: sites } = await api<Array<{ id: string; name: string }>>(server.url, `/orgs/${(await api<{ id: string }>(server.url, '/orgs/current', { token: tokenBody.access_token })).body.id}/sites`, { token: tokenBody.access_token });
        expect(job!.site_id).toBe(sites.find((s) => s.name === 'Çankaya Dağıtım Hattı')!.id);
        expect(job!.crew_id).not.toBeNull();
        // Remembered for the next recording.
        await page.reload();
        expect(await page.getByRole('region', { name: 'İş bilgileri' }).getByLabel('İş emri (isteğe bağlı)').inputValue()).toBe('İE-2026-ÇAĞ-7');
      },
      { viewport: { width: 390, height: 844 }, args: ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'], permissions: ['camera'] },
    );
  }, 150_000);
});
