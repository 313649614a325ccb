/**
 * Accessibility of every page, in both themes and both widths: axe-core (injected from its npm
 * package) finds no serious or critical violation. Pages are visited as a visitor, as a user with
 * a finished job (history, its own page) and as an admin.
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startBrowserSuite, withBrowser, type BrowserServer } from '../helpers/browser.js';
import { confirmAccount } from '../helpers/confirmEmail.js';
import { TEXT, register, startAnalysis, watchJobToDone } from './flows.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const THEME_KEY = 'amp-dashboard-theme';

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** What the page's globals hold once axe is injected (the tests are typed for Node, without the DOM library). */
interface BrowserGlobals {
  axe?: { run: (context: unknown, options: object) => Promise<{ violations: AxeViolation[] }> };
  document: unknown;
}

/** Serious and critical violations on the page as it is now, and headings out of order (moderate, but a screen reader's map of the page: issue 40). */
async function axe(page: Page): Promise<string[]> {
  // (the tests are typed for Node: the browser's globals are reached through globalThis)
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const { axe: engine, document } = globalThis as unknown as BrowserGlobals;
    return (await engine!.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical' || v.id === 'heading-order')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

/** Visits each path in the dark (default) and light themes and collects what axe finds. */
async function audit(page: Page, base: string, paths: string[]): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  for (const theme of ['dark', 'light']) {
    await page.evaluate(([key, value]) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem(key!, value!), [THEME_KEY, theme]);
    for (const path of paths) {
      await page.goto(`${base}${path}`, { waitUntil: 'networkidle' });
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await expect.poll(() => page.locator('body').getAttribute('class')).toContain(theme);
      const problems = await axe(page);
      if (problems.length > 0) found[`${theme} ${path}`] = problems;
    }
  }
  return found;
}

let suite: Awaited<ReturnType<typeof startBrowserSuite>>;
let server: BrowserServer;
let video: string;

beforeAll(async () => {
  suite = await startBrowserSuite({ video: 'erisilebilirlik.mp4', env: { BARET_ADMIN_EMAILS: 'admin@baret.test' } });
  ({ server, video } = suite);
}, 180_000);
afterAll(async () => suite?.stop());

const PUBLIC = ['/', '/how-it-works', '/ppe-equipment', '/pricing', '/contact', '/login', '/register'];
const DASHBOARD = ['/dashboard', '/dashboard/history', '/dashboard/api-keys', '/dashboard/profile'];

describe('accessibility (axe-core): no serious or critical violation on any page, in either theme', () => {
  for (const viewport of [
    { width: 1280, height: 900 },
    { width: 390, height: 844 },
  ]) {
    it(`public pages at ${viewport.width} px`, async () => {
      await withBrowser(
        `axe public ${viewport.width}`,
        async ({ page }) => {
          await page.goto(server.url);
          expect(await audit(page, server.url, PUBLIC)).toEqual({});
        },
        { viewport, bypassCSP: true },
      );
    }, 120_000);
  }

  it('dashboard pages of a user with a finished job, and of an admin', async () => {
    const t = TEXT.tr;
    await withBrowser('axe dashboard', async ({ page }) => {
      await register(page, server.url, t, { email: 'admin@baret.test', password: 'correct horse battery', fullName: 'Ayşe Admin' });
      // An admin address is an admin once confirmed (issue 37).
      await confirmAccount(server.url, { dataDir: server.dataDir }, 'admin@baret.test', 'correct horse battery');
      await page.reload();
      await startAnalysis(page, t, video);
      await watchJobToDone(page, t, 90_000);
      await page.getByRole('link', { name: 'Raporu aç' }).click();
      await page.waitForURL(/\/dashboard\/jobs\/.+/);
      const jobPath = new URL(page.url()).pathname;
      // another account, so the admin's quota table has a row with its delete button; and a message in the inbox
      const other = await fetch(`${server.url}/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'crew@example.com', password: 'correct horse battery' }) });
      expect(other.status).toBe(201);
      const contact = await fetch(`${server.url}/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'crew@example.com', message: 'A message for the inbox list.' }) });
      expect(contact.status).toBe(202);
      expect(await audit(page, server.url, [...DASHBOARD, jobPath, '/dashboard/admin'])).toEqual({});
    }, { bypassCSP: true });
  }, 240_000);
});
