/**
 * Single sign-on in a real browser (issue 30): Chromium on Baret's login page → "Şirket hesabınızla
 * giriş yapın" → Dex's own login form → back in Baret, signed in, a member of the organisation the
 * address's domain is configured for. And a token tampered with on its way is refused with the
 * reason on the login page. The real server in its own process, Dex started by the test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEX_PASSWORD, dexBinary, engineInstalled, freePort } from '@baret/platform/testing';
import { EXPECTED_PROBLEMS, ensureWebBuilt, startServerForBrowser, withBrowser, type BrowserServer } from '../helpers/browser.js';
import { startOidcProvider, type OidcProvider } from '../helpers/sso.js';
import { confirmAccount } from '../helpers/confirmEmail.js';
import { login, TEXT, visible } from './flows.js';

const installed = engineInstalled('single sign-on in the browser', dexBinary() !== null, 'Dex');

const DOMAIN = 'baret-enerji.com.tr';
const SECRET = 'baret-browser-sso-secret';
const users = [
  { email: `elif@${DOMAIN}`, username: 'elif', userID: '10000000-aaaa-4bbb-8ccc-000000000001' },
  { email: `kerem@${DOMAIN}`, username: 'kerem', userID: '10000000-aaaa-4bbb-8ccc-000000000002' },
];

let provider: OidcProvider;
let server: BrowserServer;
let dataDir: string;
let orgId: string;
let adminToken: string;

const token = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem('baret-token'));

/** Baret's login page → the company button → Dex's form, filled in and sent. */
async function signInThroughDex(page: Page, email: string) {
  await page.goto(`${server.url}/login`);
  await page.getByRole('button', { name: 'Şirket hesabınızla giriş yapın' }).click();
  await page.waitForURL((url) => url.href.startsWith(provider.issuer));
  await page.locator('#login').fill(email);
  await page.locator('#password').fill(DEX_PASSWORD);
  await page.locator('button[type="submit"]').click();
}

describe.skipIf(!installed)('single sign-on in Chromium against Dex', () => {
  beforeAll(async () => {
    const built = ensureWebBuilt();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider({ clients: [{ id: 'baret', secret: SECRET, redirectURIs: [`${base}/login/sso`] }], users });
    await built;
    dataDir = mkdtempSync(join(tmpdir(), 'baret-browser-sso-'));
    const env = { BARET_DATA_DIR: dataDir, PORT: String(port), PUBLIC_URL: base, BARET_ADMIN_EMAILS: `yonetici@${DOMAIN}`, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: 'baret', OIDC_CLIENT_SECRET: SECRET };
    // The organisation exists before the setting names it: made on a first start, named on the second.
    const first = await startServerForBrowser(env);
    const api = (path: string, init: RequestInit & { token?: string } = {}) =>
      fetch(`${first.url}${path}`, { ...init, headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) } });
    await api('/auth/register', { method: 'POST', body: JSON.stringify({ email: `yonetici@${DOMAIN}`, password: 'yonetici sifresi 1' }) });
    await confirmAccount(first.url, { dataDir }, `yonetici@${DOMAIN}`, 'yonetici sifresi 1'); // an admin once confirmed (issue 37)
    const login = (await (await api('/auth/login', { method: 'POST', body: JSON.stringify({ email: `yonetici@${DOMAIN}`, password: 'yonetici sifresi 1' }) })).json()) as { access_token: string };
    adminToken = login.access_token;
    orgId = ((await (await api('/orgs', { method: 'POST', token: login.access_token, body: JSON.stringify({ name: 'Baret Enerji A.Ş.' }) })).json()) as { id: string }).id;
    await first.stop();
    server = await startServerForBrowser({ ...env, OIDC_ORG_DOMAINS: `${DOMAIN}=${orgId}` });
  }, 600_000);

  afterAll(async () => {
    await server?.stop();
    await provider?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('login page → "Şirket hesabınızla giriş yapın" → Dex → back in Baret, signed in, a member of the organisation', async () => {
    await withBrowser('sso-flow', async ({ page }) => {
      await signInThroughDex(page, users[0]!.email);
      await page.waitForURL(`${server.url}/dashboard`);
      await visible(page.getByRole('heading', { name: 'Video analizi', level: 1 }));
      const access = await token(page);
      expect(access).toBeTruthy();
      const me = (await (await fetch(`${server.url}/auth/me`, { headers: { authorization: `Bearer ${access}` } })).json()) as { email: string };
      expect(me.email).toBe(users[0]!.email);
      const org = (await (await fetch(`${server.url}/orgs/current`, { headers: { authorization: `Bearer ${access}` } })).json()) as { id: string; role: string };
      expect(org).toMatchObject({ id: orgId, role: 'member' });
      // The organisation page says so too.
      await page.goto(`${server.url}/dashboard/organisation`);
      await visible(page.getByRole('heading', { name: 'Baret Enerji A.Ş.', level: 1 }));
    });
    // The server said it (identity's one sign-in decision), and never wrote the client secret.
    expect(server.logs.some((l) => l.msg === 'signed in' && l.method === 'sso' && l.created === true)).toBe(true);
    expect(`${JSON.stringify(server.logs)}${server.stderr()}`).not.toContain(SECRET);
  }, 180_000);

  it('a manager turns password login off on the organisation page, and on again', async () => {
    await withBrowser('sso-password-login-switch', async ({ page }) => {
      await page.goto(`${server.url}/login`);
      // The manager is also a Baret admin here: admins keep password login.
      await login(page, TEXT.tr, { email: `yonetici@${DOMAIN}`, password: 'yonetici sifresi 1' });
      await page.waitForURL(`${server.url}/dashboard`);
      await page.goto(`${server.url}/dashboard/organisation`);
      const card = page.getByRole('region', { name: 'Giriş' });
      const box = card.getByRole('checkbox', { name: 'Üyeler şifreyle giriş yapabilir' });
      await visible(box);
      expect(await box.isChecked()).toBe(true);
      await box.click();
      await visible(card.getByText('Üyeler yalnızca şirket hesabıyla girebilir. Baret yöneticileri (admin) şifreyle girmeye devam eder.'));
      expect(await box.isChecked()).toBe(false);
      const setting = async () =>
        ((await (await fetch(`${server.url}/orgs/${orgId}/sign-in`, { headers: { authorization: `Bearer ${adminToken}` } })).json()) as { password_login: boolean }).password_login;
      expect(await setting()).toBe(false);
      await box.click();
      await card.getByText('Üyeler yalnızca şirket hesabıyla girebilir.', { exact: false }).waitFor({ state: 'hidden' });
      expect(await box.isChecked()).toBe(true);
      await visible(card.getByText('Kaydedildi.'));
      expect(await setting()).toBe(true);
    });
  }, 180_000);

  it('a tampered ID token is refused: the login page says why, and no session starts', async () => {
    provider.setTokenMode({ kind: 'tamper-signature' });
    try {
      await withBrowser(
        'sso-tampered',
        async ({ page }) => {
          await signInThroughDex(page, users[1]!.email);
          await page.waitForURL(`${server.url}/login`);
          await visible(page.getByText('Giriş reddedildi: kimlik belirtecinin imzası geçerli değil.'));
          expect(await token(page)).toBeNull();
        },
        // The refusal itself is the 401 the page is expected to get.
        { ignore: [...EXPECTED_PROBLEMS, /^http 401 POST \/auth\/sso\/callback$/, /status of 401/] },
      );
    } finally {
      provider.setTokenMode({ kind: 'pass' });
    }
    // Nothing was created for the person.
    const all = (await (await fetch(`${server.url}/admin/users/quotas`, { headers: { authorization: `Bearer ${adminToken}` } })).json()) as Array<{ email: string }>;
    expect(all.map((u) => u.email)).toContain(users[0]!.email);
    expect(all.map((u) => u.email)).not.toContain(users[1]!.email);
  }, 180_000);
});
