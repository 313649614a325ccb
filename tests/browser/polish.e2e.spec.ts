/**
 * What a crew, a manager and an admin noticed in issue 40 (minor points), in Chromium against the
 * real server on the demo organisation (`seed-demo`): nothing runs off a phone's screen, words
 * instead of keys, and a header on one line at 1440 px.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DEMO_MANAGER, DEMO_PASSWORD } from '../../services/standalone/src/seedDemo.js';
import { startDemoOrgServer, withBrowser } from '../helpers/browser.js';
import type { RunningBaret } from '../helpers/process.js';
import { TEXT, login, visible } from './flows.js';

let demo: Awaited<ReturnType<typeof startDemoOrgServer>>;
let server: RunningBaret;

beforeAll(async () => {
  // The demo manager is also an admin: the most links the header can have.
  demo = await startDemoOrgServer({}, { promote: DEMO_MANAGER });
  server = demo.server;
}, 300_000);
afterAll(async () => demo?.stop());

/** How far the page scrolls sideways (0 when it fits the screen). */
const sideways = (page: Page) =>
  page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });

async function signIn(page: Page, path: string) {
  await page.goto(`${server.url}/login?redirectTo=${encodeURIComponent(path)}`);
  await login(page, TEXT.tr, { email: DEMO_MANAGER, password: DEMO_PASSWORD });
  await page.waitForURL(`**${path.split('?')[0]}*`);
}

describe('issue 40, on a phone (390 px)', () => {
  it('keeps the profile, the notification panel, the organisation and the rankings on the screen, in words', async () => {
    await withBrowser(
      'polish phone',
      async ({ page }) => {
        await signIn(page, '/dashboard/profile');
        await visible(page.getByRole('heading', { level: 1, name: 'Profil' }));
        expect(await sideways(page)).toBe(0);
        // the manager's role, not "User"; dates without "UTC"
        const account = page.getByRole('region', { name: 'Hesap' });
        await visible(account.getByText(/^Yönetici · /));
        expect(await account.innerText()).not.toMatch(/\d UTC/);

        await page.locator('.bell-button').click();
        const panel = page.locator('#notification-panel');
        await visible(panel);
        const box = (await panel.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(390);
        await page.keyboard.press('Escape');

        await page.goto(`${server.url}/dashboard/organisation`);
        await visible(page.getByRole('heading', { name: 'Sahalar' }));
        expect(await sideways(page)).toBe(0);
        const plan = page.getByRole('region', { name: 'Plan ve kullanım' });
        expect(await plan.innerText()).toContain('Kurumsal');
        expect(await plan.innerText()).not.toMatch(/\benterprise\b/);
        // the role select is wide enough to read its option, not "Y"
        const role = page.getByRole('combobox', { name: /Ekip Şefi 1 kişisinin rolü/ });
        const [client, needed] = await role.evaluate((el) => {
          const select = el as unknown as { clientWidth: number; scrollWidth: number; options: Array<{ text: string }>; selectedIndex: number };
          return [select.clientWidth, select.options[select.selectedIndex]!.text.length];
        });
        expect(client).toBeGreaterThan(needed * 7 + 24);
        // the audit log: no ids to type, details in words
        const audit = page.getByRole('region', { name: 'Denetim kaydı' });
        await visible(audit.getByRole('combobox', { name: 'Kim' }));
        expect(await audit.getByRole('form').locator('input:not([type=date])').count()).toBe(0);
        await expect.poll(() => audit.locator('tbody').innerText()).toMatch(/Plan: Kurumsal/);
        expect(await audit.locator('tbody').innerText()).not.toMatch(/plan_name|lifetime_limit/);

        const to = new Date().toISOString().slice(0, 10);
        await page.goto(`${server.url}/dashboard/compliance?from=2020-01-01&to=${to}`);
        await visible(page.getByTestId('compliance-chart'));
        expect(await sideways(page)).toBe(0);
        for (const table of await page.getByTestId('ranking').all()) {
          const [scroll, client] = await table.evaluate((el) => [(el as unknown as { scrollWidth: number }).scrollWidth, (el.parentElement as unknown as { clientWidth: number }).clientWidth]);
          expect(scroll).toBeLessThanOrEqual(client);
        }
      },
      { viewport: { width: 390, height: 844 }, locale: 'tr-TR' },
    );
  }, 180_000);
});

describe('issue 40, at 1440 px', () => {
  it.each(['tr', 'en'] as const)('%s: an admin who manages an organisation has every link on one header line', async (lang) => {
    await withBrowser(
      `polish header ${lang}`,
      async ({ page }) => {
        await signIn(page, '/dashboard/organisation');
        if (lang === 'en') await page.getByRole('group', { name: 'Dil' }).getByRole('button', { name: 'EN English' }).click();
        const nav = page.getByRole('navigation', { name: lang === 'tr' ? 'Uygulama menüsü' : 'Application navigation' });
        const links = nav.getByRole('link');
        await expect.poll(() => links.count()).toBe(8);
        const tops = await Promise.all((await links.all()).map(async (l) => Math.round((await l.boundingBox())!.y)));
        expect(new Set(tops).size).toBe(1);
        // nothing of the header's right side sits on top of the last link
        const last = (await links.last().boundingBox())!;
        const bell = (await page.locator('.bell-button').boundingBox())!;
        expect(last.x + last.width).toBeLessThanOrEqual(bell.x);
      },
      { viewport: { width: 1440, height: 900 } },
    );
  }, 120_000);
});
