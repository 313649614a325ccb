/**
 * A report a manager can hand to an auditor, and what crews, managers and admins tripped on (issue
 * 40), in Chromium against the real server on the demo organisation (`seed-demo`), in Turkish and
 * English: the manager lists the organisation's jobs, filters by member and opens a member's job,
 * whose page says where, by whom, for which work order and how long the video is; the pricing page
 * promises the limits the Pro preset saves; the invitation says what joining does to one's plan; the
 * admin page shows the outbox (no live tokens) and confirms an address. Phone and desktop
 * screenshots go to $BARET_SCREENSHOTS (default: the temp folder).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PRESETS } from '../../services/quota/src/quota/quota.js';
import { DEMO_MANAGER, DEMO_PASSWORD } from '../../services/standalone/src/seedDemo.js';
import { REPO_ROOT, WEB_DIST, ensureWebBuilt, withBrowser } from '../helpers/browser.js';
import { confirmAccount } from '../helpers/confirmEmail.js';
import { api, startBaret, type RunningBaret } from '../helpers/process.js';
import { TEXT, definition, login, visible } from './flows.js';

const run = promisify(execFile);
const SHOTS = process.env.BARET_SCREENSHOTS ?? join(tmpdir(), 'baret-issue40-screens');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };
const PASSWORD = 'correct horse battery';

const T = {
  tr: {
    team: 'Kuruluşun işleri',
    member: 'Kaydeden',
    list: 'Kuruluşun işleri',
    facts: ['Saha', 'Ekip', 'İş emri', 'Kaydeden', 'Video süresi'],
    processing: 'Analiz süresi',
    pro: `Günde ${PRESETS.pro.daily_limit}, ayda ${PRESETS.pro.monthly_limit} analiz`,
    joinTitle: 'Katılınca planınıza ne olur?',
    joinOwn: /Kendi Pro planınız üyeliğiniz boyunca kullanılmaz/,
    outbox: 'Giden e-postalar',
    verify: (email: string) => `Adresi doğrulanmış say (${email})`,
    verified: (email: string) => `${email} adresi doğrulandı.`,
  },
  en: {
    team: 'Organisation’s jobs',
    member: 'Recorded by',
    list: 'Organisation’s jobs',
    facts: ['Site', 'Crew', 'Work order', 'Recorded by', 'Video length'],
    processing: 'Processing time',
    pro: `${PRESETS.pro.daily_limit} analyses per day, ${PRESETS.pro.monthly_limit} per month`,
    joinTitle: 'What joining does to your plan',
    joinOwn: /Your own Pro plan is not used while you are a member/,
    outbox: 'Outgoing mail',
    verify: (email: string) => `Mark the address confirmed (${email})`,
    verified: (email: string) => `${email} is confirmed.`,
  },
} as const;
type Lang = keyof typeof T;

let dataDir: string;
let server: RunningBaret;
let admin: string;
let manager: string;
let orgId: string;

const post = <B>(path: string, body: unknown, token?: string) => api<B>(server.url, path, { method: 'POST', body: JSON.stringify(body), ...(token ? { token } : {}) });
const signIn = async (email: string, password = PASSWORD) => (await post<{ access_token: string }>('/auth/login', { email, password })).body.access_token;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const built = ensureWebBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'baret-browser-issue40-'));
  await run(process.execPath, ['--import', 'tsx', 'services/standalone/src/admin-cli.ts', 'seed-demo'], { cwd: REPO_ROOT, env: { ...process.env, BARET_DATA_DIR: dataDir, LOG_LEVEL: 'warn' } });
  await built;
  server = await startBaret({ BARET_DATA_DIR: dataDir, WEB_DIST_DIR: WEB_DIST, RATE_LIMIT_PER_MINUTE: '10000', BARET_ADMIN_EMAILS: 'admin@baret.test' });
  await post('/auth/register', { email: 'admin@baret.test', password: PASSWORD });
  // The first admin by e-mail is one once the address is confirmed (issue 37).
  await confirmAccount(server.url, { dataDir }, 'admin@baret.test', PASSWORD);
  admin = await signIn('admin@baret.test');
  manager = await signIn(DEMO_MANAGER, DEMO_PASSWORD);
  orgId = (await api<{ id: string }>(server.url, '/orgs/current', { token: manager })).body.id;
}, 300_000);
afterAll(async () => {
  if (server?.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** The language the person chose before (kept in local storage, as the language toggle does). */
async function chooseLanguage(page: Page, lang: Lang) {
  await page.addInitScript((value) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('baret-lang', value), lang);
}

async function signInAs(page: Page, lang: Lang, email: string, password: string, to: string) {
  await chooseLanguage(page, lang);
  await page.goto(`${server.url}/login?redirectTo=${encodeURIComponent(to)}`);
  await login(page, TEXT[lang], { email, password });
  await page.waitForURL((url) => url.pathname === to.split('?')[0]);
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

describe.each(['tr', 'en'] as const)('issue 40 in %s', (lang) => {
  const t = T[lang];

  it("a manager lists the organisation's jobs, filters by member and opens a member's job with where, by whom, for which work order and the video's length", async () => {
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await withBrowser(
        `team jobs ${lang} ${size}`,
        async ({ page }) => {
          await signInAs(page, lang, DEMO_MANAGER, DEMO_PASSWORD, '/dashboard/history');
          await page.getByRole('button', { name: t.team }).click();
          const list = page.getByRole('list', { name: t.list });
          await visible(list);
          expect(page.url()).toContain('scope=org');
          await expect.poll(() => list.getByRole('listitem').count()).toBe(100);
          await page.getByLabel(t.member, { exact: true }).selectOption({ label: 'Ekip Şefi 2 (ekip2@example.com)' });
          await expect.poll(async () => (await list.innerText()).includes('ekip1@example.com')).toBe(false);
          expect(await list.innerText()).toContain('ekip2@example.com');
          expect(await list.innerText()).toMatch(/İE-2026-\d{4}/);
          await shot(page, `team-jobs-${lang}-${size}`);
          await list.getByRole('link').first().click();
          await page.waitForURL(/\/dashboard\/jobs\//);
          for (const term of t.facts) await visible(definition(page, term));
          expect(await definition(page, t.facts[2]).innerText()).toMatch(/^İE-2026-\d{4}$/);
          expect(await definition(page, t.facts[3]).innerText()).toContain('ekip2@example.com');
          expect(await definition(page, t.facts[1]).innerText()).toBe('Trafo Ekibi');
          expect(await definition(page, t.facts[4]).innerText()).toMatch(/\d/);
          await visible(page.getByText(t.processing, { exact: true }));
          await shot(page, `job-page-${lang}-${size}`);
        },
        { viewport, locale: 'tr-TR' },
      );
    }
  }, 300_000);

  it('the pricing page promises the limits the Pro preset saves', async () => {
    await withBrowser(
      `pricing ${lang}`,
      async ({ page }) => {
        await chooseLanguage(page, lang);
        await page.goto(`${server.url}/pricing`);
        const pro = page.getByRole('listitem', { name: 'Pro' });
        await visible(pro);
        expect(await pro.innerText()).toContain(t.pro);
        await shot(page, `pricing-${lang}-phone`);
      },
      { viewport: PHONE, locale: 'tr-TR' },
    );
  }, 120_000);

  it('the invitation says what joining does to the plan of a Pro user', async () => {
    const email = `invitee-${lang}@example.com`;
    await post('/auth/register', { email, password: PASSWORD, full_name: 'Davetli Kişi' });
    const me = await api<{ id: string }>(server.url, '/auth/me', { token: await signIn(email) });
    await api(server.url, `/admin/users/${me.body.id}/quota`, { method: 'PATCH', token: admin, body: JSON.stringify({ plan_name: 'pro' }) });
    const invite = await post<{ token: string }>(`/orgs/${orgId}/invites`, { email, role: 'member' }, manager);
    expect(invite.status).toBe(201);
    await withBrowser(
      `invite ${lang}`,
      async ({ page }) => {
        await signInAs(page, lang, email, PASSWORD, `/invite/${invite.body.token}`);
        const alert = page.getByText(t.joinTitle);
        await visible(alert);
        await visible(page.getByText(t.joinOwn));
        await shot(page, `invite-${lang}-phone`);
      },
      { viewport: PHONE, locale: 'tr-TR' },
    );
  }, 120_000);

  it('the admin page shows the outbox without live links, and an admin confirms an address', async () => {
    const email = `unconfirmed-${lang}@example.com`;
    await post('/auth/register', { email, password: PASSWORD });
    await withBrowser(
      `outbox ${lang}`,
      async ({ page }) => {
        await signInAs(page, lang, 'admin@baret.test', PASSWORD, '/dashboard/admin');
        const outbox = page.getByRole('region', { name: t.outbox });
        await visible(outbox);
        await expect.poll(async () => (await outbox.innerText()).includes(email), { timeout: 15_000 }).toBe(true);
        for (const details of await outbox.locator('details').all()) await details.locator('summary').click();
        expect(await outbox.innerText()).not.toMatch(/token=[A-Za-z0-9%._-]{10,}/);
        await outbox.getByRole('button', { name: t.verify(email) }).click();
        await visible(outbox.getByText(t.verified(email)));
        await outbox.scrollIntoViewIfNeeded();
        await shot(page, `admin-outbox-${lang}-desktop`);
      },
      { viewport: DESKTOP, locale: 'tr-TR' },
    );
    const me = await api<{ email_verified: boolean }>(server.url, '/auth/me', { token: await signIn(email) });
    expect(me.body.email_verified).toBe(true);
  }, 120_000);
});
