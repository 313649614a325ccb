/**
 * What a crew member, a manager and an admin still stumbled on (issue 54), in Chromium against the
 * real server (no mail server, as `npm start` runs it), in Turkish and English, on a phone (touch)
 * and on a desktop. The organisation, its invitation and the quotas are set up through the API;
 * everything checked is what a person sees.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ensureWebBuilt, startServerForBrowser, withBrowser, type BrowserServer } from '../helpers/browser.js';
import { api, unlimitedAdmin } from '../helpers/process.js';
import { videoFixtures } from '../../services/analysis/test/fixtures/videos.js';
import { TEXT, login, visible, type Lang } from './flows.js';

const PASSWORD = 'correct horse battery';
const PHONE = { width: 390, height: 844 };
const ADMIN = 'admin-54@example.com';
/** unlimitedAdmin's password. */
const ADMIN_PASSWORD = 'password 123';

const T = {
  tr: {
    invites: (org: string) => `${org} sizi davet ediyor`,
    registerLink: 'Kayıt olun',
    accept: 'Kabul et ve katıl',
    invitedTo: (org: string) => `${org} kuruluşuna Üye olarak davet edildiniz`,
    team: 'Kuruluşun işleri',
    mine: 'Benim işlerim',
    noMail: /e-posta sunucusu yok.*yöneticinize başvurun/,
    sentClaim: /Gönderildi|gönderdik/,
    forgot: 'Şifremi unuttum',
    sendLink: 'Bağlantıyı gönder',
    quotaSpec: 'Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.',
    plan: /Planınız: Ücretsiz \(Ömür boyu 1 analiz\)/i,
    upgrade: 'Pro yükseltme talebi gönderin',
    planFor: (who: string) => `${who} için plan`,
    save: 'Kaydet',
    planTooLong: 'Plan adı en fazla 50 karakter olabilir.',
    tap: 'Video seçmek için dokunun',
    drop: 'Videoyu buraya bırakın ya da seçmek için tıklayın',
    clickWords: /tıklayın|bırakın/,
    oneMember: '1 üye',
    left: (n: number) => new RegExp(`${n} analiz hakkınız kaldı`),
  },
  en: {
    invites: (org: string) => `${org} invites you`,
    registerLink: 'Sign up',
    accept: 'Accept and join',
    invitedTo: (org: string) => `You are invited to ${org} as Member`,
    team: 'Organisation’s jobs',
    mine: 'My jobs',
    noMail: /no mail server.*ask your Baret administrator/i,
    sentClaim: /\bSent\b|we sent/i,
    forgot: 'Forgot your password?',
    sendLink: 'Send the link',
    quotaSpec: 'You have reached your usage limit. Please contact an admin.',
    plan: /Your plan: Free \(1 analysis for life\)/i,
    upgrade: 'Request an upgrade to Pro',
    planFor: (who: string) => `Plan for ${who}`,
    save: 'Save',
    planTooLong: 'A plan name has at most 50 characters.',
    tap: 'Tap to choose a video',
    drop: 'Drop a video here or click to choose',
    clickWords: /\bclick\b|\bdrop\b/i,
    oneMember: '1 member',
    left: (n: number) => new RegExp(`${n} analys[ie]s left`),
  },
} as const;

let server: BrowserServer;
let video: string;
let adminToken: string;

const post = (path: string, token: string | undefined, body?: unknown) =>
  api<Record<string, unknown> & { id: string; token: string; access_token: string }>(server.url, path, { method: 'POST', token, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

/**
 * A new account through the API: its id and address, and a token when `withToken` (each login and
 * sign-up counts against the per-address limits, 20 a minute and 20 an hour: one server per language).
 */
async function person(name: string, withToken = false): Promise<{ id: string; email: string; token: string }> {
  const email = `${name}-${randomUUID().slice(0, 8)}@example.com`;
  const registered = await post('/auth/register', undefined, { email, password: PASSWORD });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  const token = withToken ? (await post('/auth/login', undefined, { email, password: PASSWORD })).body.access_token : '';
  return { id: registered.body.id, email, token };
}

async function setQuota(userId: string, quota: Record<string, unknown>) {
  const res = await api(server.url, `/admin/users/${userId}/quota`, { method: 'PATCH', token: adminToken, body: JSON.stringify(quota) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const chooseLanguage = (page: Page, lang: Lang) =>
  page.addInitScript((value) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('baret-lang', value), lang);

async function signInAs(page: Page, lang: Lang, email: string, to: string) {
  await chooseLanguage(page, lang);
  await page.goto(`${server.url}/login?redirectTo=${encodeURIComponent(to)}`);
  await login(page, TEXT[lang], { email, password: email === ADMIN ? ADMIN_PASSWORD : PASSWORD });
  await page.waitForURL((url) => url.pathname === to.split('?')[0]);
}

describe.each(['tr', 'en'] as const)('issue 54 in %s', (lang) => {
  const t = T[lang];
  beforeAll(async () => {
    const built = ensureWebBuilt();
    video = (await (await videoFixtures()).photos('stumbles.mp4', 2, 3)).path;
    await built;
    server = await startServerForBrowser({ BARET_ADMIN_EMAILS: ADMIN });
    adminToken = await unlimitedAdmin(server.url, server.dataDir, ADMIN);
  }, 600_000);
  afterAll(async () => server?.stop());

  it('1. an invitation opened logged out survives sign-up and ends on the accept page, naming the organisation', async () => {
    const manager = await person(`manager-${lang}`, true);
    const orgName = `Ege Elektrik ${lang.toUpperCase()}`;
    const org = await post('/orgs', manager.token, { name: orgName });
    expect(org.status).toBe(201);
    const email = `invited-${lang}-${randomUUID().slice(0, 8)}@example.com`;
    const invite = await post(`/orgs/${org.body.id}/invites`, manager.token, { email, role: 'member' });
    expect(invite.status).toBe(201);
    await withBrowser(`invite ${lang}`, async ({ page }) => {
      await chooseLanguage(page, lang);
      await page.goto(`${server.url}/invite/${invite.body.token}`);
      await page.waitForURL(/\/login\?redirectTo=/);
      await visible(page.getByText(t.invites(orgName)));
      await page.locator('form').getByRole('link', { name: t.registerLink }).click();
      await page.waitForURL(/\/register\?redirectTo=/);
      await visible(page.getByText(t.invites(orgName)));
      // The invited address is filled in.
      await expect.poll(() => page.getByLabel(TEXT[lang].email, { exact: true }).inputValue()).toBe(email);
      await page.getByLabel(TEXT[lang].password, { exact: true }).fill(PASSWORD);
      await page.getByLabel(TEXT[lang].confirmPassword, { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: TEXT[lang].createAccount }).click();
      await page.waitForURL(`**/invite/${invite.body.token}`);
      await visible(page.getByText(t.invitedTo(orgName)));
      await page.getByRole('button', { name: t.accept }).click();
      await page.waitForURL('**/dashboard/organisation');
      await visible(page.getByText(orgName).first());
    });
  }, 180_000);

  it("4. a manager's History opens on the organisation's jobs", async () => {
    const manager = await person(`history-${lang}`, true);
    expect((await post('/orgs', manager.token, { name: `Trakya Enerji ${lang}` })).status).toBe(201);
    await withBrowser(`history ${lang}`, async ({ page }) => {
      await signInAs(page, lang, manager.email, '/dashboard/history');
      await expect.poll(() => page.getByRole('button', { name: t.team }).getAttribute('aria-pressed')).toBe('true');
      expect(await page.getByRole('button', { name: t.mine }).getAttribute('aria-pressed')).toBe('false');
      // Their own jobs stay one click away.
      await page.getByRole('button', { name: t.mine }).click();
      await expect.poll(() => page.getByRole('button', { name: t.mine }).getAttribute('aria-pressed')).toBe('true');
    });
  }, 180_000);

  it('5. without a mail server, nothing says a mail was sent: the banner and the reset page say what happened and whom to ask', async () => {
    const crew = await person(`nomail-${lang}`);
    await withBrowser(`no mail ${lang}`, async ({ page }) => {
      await signInAs(page, lang, crew.email, '/dashboard');
      const banner = page.locator('.verify-banner');
      await visible(banner);
      await expect.poll(() => banner.innerText()).toMatch(t.noMail);
      expect(await banner.innerText()).not.toMatch(t.sentClaim);
      expect(await banner.getByRole('button').count()).toBe(0);
      await page.context().clearCookies();
      await page.evaluate(() => (globalThis as unknown as { localStorage: { clear(): void } }).localStorage.clear());
      await chooseLanguage(page, lang);
      await page.goto(`${server.url}/forgot-password`);
      await page.getByLabel(TEXT[lang].email, { exact: true }).fill(crew.email);
      await page.getByRole('button', { name: t.sendLink }).click();
      const answer = page.getByRole('alert').or(page.locator('.alert')).first();
      await visible(answer);
      expect(await answer.innerText()).toMatch(t.noMail);
      expect(await answer.innerText()).not.toMatch(t.sentClaim);
    });
  }, 180_000);

  it("6. an exhausted quota keeps the spec's message and adds the plan's name and the way to upgrade", async () => {
    const crew = await person(`quota-${lang}`, true);
    await setQuota(crew.id, { plan_name: 'free', lifetime_limit: 0, daily_limit: null, monthly_limit: null });
    await setQuota(crew.id, { lifetime_limit: 1 });
    // One job uses the only analysis.
    const form = new FormData();
    form.set('file', new Blob([await import('node:fs').then((fs) => fs.readFileSync(video))], { type: 'video/mp4' }), 'clip.mp4');
    const started = await fetch(`${server.url}/analyze`, { method: 'POST', headers: { authorization: `Bearer ${crew.token}` }, body: form });
    expect(started.status).toBe(202);
    await withBrowser(`quota ${lang}`, async ({ page }) => {
      await signInAs(page, lang, crew.email, '/dashboard');
      const alert = page.locator('.alert').filter({ hasText: t.quotaSpec });
      await visible(alert);
      expect(await alert.innerText()).toMatch(t.plan);
      await visible(alert.getByRole('link', { name: t.upgrade }));
    });
  }, 180_000);

  it('7. an admin who types a plan name the server cannot keep is told which field and why', async () => {
    const crew = await person(`plan-${lang}`);
    await withBrowser(`plan name ${lang}`, async ({ page }) => {
      await signInAs(page, lang, ADMIN, '/dashboard/admin');
      const plan = page.getByRole('combobox', { name: t.planFor(crew.email) }).or(page.getByLabel(t.planFor(crew.email), { exact: true }));
      await plan.fill('x'.repeat(60));
      const row = page.locator('li.quota-row').filter({ has: plan });
      await visible(row.getByText(t.planTooLong).first());
      await row.getByRole('button', { name: t.save }).click();
      await visible(row.locator('.alert').filter({ hasText: t.planTooLong }));
    });
  }, 180_000);

  it('8. a phone says "tap" and never "click" or "drop"; a desktop says drop or click; the admin sees each organisation once, with "1 member"', async () => {
    const crew = await person(`touch-${lang}`);
    const manager = await person(`card-${lang}`, true);
    const orgName = `Karadeniz Dağıtım ${lang.toUpperCase()}`;
    expect((await post('/orgs', manager.token, { name: orgName })).status).toBe(201);
    await withBrowser(
      `touch ${lang}`,
      async ({ page }) => {
        await signInAs(page, lang, crew.email, '/dashboard');
        await visible(page.getByText(t.tap));
        expect(await page.locator('main').innerText()).not.toMatch(t.clickWords);
        // after choosing a video and removing it, still "tap"
        await page.getByLabel(TEXT[lang].chooseVideo).setInputFiles(video);
        await page.locator('.video-chosen').getByRole('button').click();
        await visible(page.getByText(t.tap));
        expect(await page.locator('main').innerText()).not.toMatch(t.clickWords);
      },
      { viewport: PHONE, hasTouch: true },
    );
    await withBrowser(`desktop ${lang}`, async ({ page }) => {
      await signInAs(page, lang, crew.email, '/dashboard');
      await visible(page.getByText(t.drop));
    });
    await withBrowser(`org card ${lang}`, async ({ page }) => {
      await signInAs(page, lang, ADMIN, '/dashboard/admin');
      const row = page.locator('li.quota-row').filter({ hasText: orgName });
      await visible(row);
      const text = await row.locator('.quota-user').innerText();
      expect(text.split(orgName).length - 1, text).toBe(1);
      expect(text).toContain(t.oneMember);
      expect(text).not.toMatch(/1 members/);
    });
  }, 180_000);

  it('9. the remaining count drops as soon as a job starts, not when it ends', async () => {
    const crew = await person(`reserve-${lang}`, true);
    await setQuota(crew.id, { plan_name: 'free', lifetime_limit: 3, daily_limit: null, monthly_limit: null });
    await withBrowser(`reserve ${lang}`, async ({ page }) => {
      await signInAs(page, lang, crew.email, '/dashboard');
      await visible(page.getByText(t.left(3)));
      await page.getByLabel(TEXT[lang].chooseVideo).setInputFiles(video);
      await page.getByRole('button', { name: TEXT[lang].start }).click();
      // The count says 2 while the job is still queued or running (it takes seconds to sample and judge).
      await visible(page.getByText(t.left(2)), 60_000);
      const jobs = await api<Array<{ status: string }>>(server.url, '/jobs', { token: crew.token });
      expect(jobs.body.map((j) => j.status)).toHaveLength(1);
      expect(['queued', 'running']).toContain(jobs.body[0]!.status);
    });
  }, 180_000);
});
