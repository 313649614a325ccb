/**
 * Single sign-on with OpenID Connect (issue 30) against a real provider: Dex, started by the test
 * (scripts/engines/install-dex.sh), signing users in at its own login form. The three bad tokens
 * are real Dex tokens altered on their way to Baret (tests/helpers/sso.ts): a signature changed
 * by one byte, a token Dex signed for another application, and a token past its expiry by Baret's
 * clock. Embedded run, in process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntryId, auditStream } from '@baret/platform';
import { dexBinary, engineInstalled, signInAtDex, type DexClient } from '@baret/platform/testing';
import { startTestApp, TestClock, type TestApp } from './helpers/app.js';
import { claimsOf, idTokenFor, startOidcProvider, type OidcProvider } from './helpers/sso.js';

const installed = engineInstalled('single sign-on', dexBinary() !== null, 'Dex');

const REDIRECT = 'http://baret.test/login/sso';
const baretClient: DexClient = { id: 'baret', secret: 'baret-sso-test-secret', redirectURIs: [REDIRECT] };
const otherClient: DexClient = { id: 'other-app', secret: 'other-app-secret', redirectURIs: ['http://other.test/callback'] };
const DOMAIN = 'baret-enerji.com.tr';
const person = (name: string, domain = DOMAIN, n = 0) => ({ email: `${name}@${domain}`, username: name, userID: `0000000${n}-aaaa-4bbb-8ccc-${String(n).padStart(12, '0')}` });
const USERS = {
  ayse: person('ayse', DOMAIN, 1),
  mehmet: person('mehmet', 'example.com', 2),
  tampered: person('tampered', DOMAIN, 3),
  audience: person('audience', DOMAIN, 4),
  expired: person('expired', DOMAIN, 5),
  zeynep: person('zeynep', 'example.com', 6),
  manager: person('manager', DOMAIN, 7),
  twin: person('twin', DOMAIN, 8),
  // Both named in BARET_ADMIN_EMAILS; Dex says the first one's address is verified, not the second's.
  admin: person('admin', 'example.com', 9),
  boss: { ...person('boss', 'example.com', 10), emailVerified: false },
  kept: person('kept', 'example.com', 11),
};

let provider: OidcProvider;
let app: TestApp;
let dir: string;
let orgId: string;
let manager: { token: string; id: string };
const clock = new TestClock();

/** Starts a sign-in at Baret the way the web app does: the authorization URL and the flow cookie. */
async function start(lang = 'en') {
  const res = await app.request({ method: 'POST', url: '/auth/sso/start', payload: {}, headers: { 'accept-language': lang } });
  expect(res.statusCode, res.body).toBe(200);
  const cookie = /baret_sso=([^;]+)/.exec(String(res.headers['set-cookie']))?.[1];
  expect(cookie).toBeTruthy();
  expect(String(res.headers['set-cookie'])).toMatch(/HttpOnly/);
  return { url: new URL((res.json() as { authorization_url: string }).authorization_url), cookie: cookie! };
}

/** What the redirect page posts back, with the flow's cookie. */
const callback = (cookie: string | null, back: URL, lang = 'en') =>
  app.request({
    method: 'POST',
    url: '/auth/sso/callback',
    headers: { 'accept-language': lang, ...(cookie ? { cookie: `baret_sso=${cookie}` } : {}) },
    payload: Object.fromEntries(back.searchParams.entries()),
  });

/** The whole sign-in: Baret → Dex's form → back to Baret. */
async function signIn(email: string, lang = 'en') {
  const { url, cookie } = await start(lang);
  const back = await signInAtDex(url.href, email);
  return { res: await callback(cookie, back, lang), url, back, cookie };
}

const json = <T = Record<string, unknown>>(res: { json(): unknown }) => res.json() as T;

describe.skipIf(!installed)('single sign-on against Dex (embedded run)', () => {
  beforeAll(async () => {
    provider = await startOidcProvider({ clients: [baretClient, otherClient], users: Object.values(USERS), idTokenTtl: '2m' });
    clock.set(new Date().toISOString());
    // The organisation the company's domain is configured for exists before the setting names it.
    dir = mkdtempSync(join(tmpdir(), 'baret-sso-'));
    const first = await startTestApp({}, { dir, clock, background: false });
    manager = await first.signUp(USERS.manager.email, 'manager password 123');
    // A manager who confirmed the address: a company sign-in keeps their password (an unconfirmed one loses it).
    await first.confirmEmail(manager.id);
    orgId = json<{ id: string }>(await first.request({ method: 'POST', url: '/orgs', token: manager.token, payload: { name: 'Baret Enerji' } })).id;
    await first.close();
    app = await startTestApp(
      {
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: baretClient.id,
        OIDC_CLIENT_SECRET: baretClient.secret,
        OIDC_REDIRECT_URL: REDIRECT,
        OIDC_ORG_DOMAINS: `${DOMAIN}=${orgId}`,
        BARET_ADMIN_EMAILS: `${USERS.admin.email},${USERS.boss.email}`,
      },
      { dir, clock, background: false },
    );
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await provider?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('offers single sign-on; the authorization request has PKCE (S256), state and nonce', async () => {
    expect(json((await app.request({ method: 'GET', url: '/auth/sso' })))).toEqual({ enabled: true });
    const { url } = await start();
    expect(url.origin + url.pathname).toBe(`${provider.issuer}/auth`);
    const q = url.searchParams;
    expect(q.get('client_id')).toBe('baret');
    expect(q.get('redirect_uri')).toBe(REDIRECT);
    expect(q.get('response_type')).toBe('code');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')?.length).toBeGreaterThanOrEqual(20);
    expect(q.get('nonce')?.length).toBeGreaterThanOrEqual(20);
    expect(q.get('scope')).toContain('openid');
  });

  it('a first sign-in creates the user without a password and puts them in the organisation as a member; the next finds the same user', async () => {
    const { res } = await signIn(USERS.ayse.email);
    expect(res.statusCode, res.body).toBe(200);
    const body = json<{ access_token: string; created: boolean }>(res);
    expect(body.created).toBe(true);
    const me = json<{ id: string; email: string; email_verified: boolean }>(await app.request({ method: 'GET', url: '/auth/me', token: body.access_token }));
    expect(me.email).toBe(USERS.ayse.email);
    expect(me.email_verified).toBe(true);
    const org = json<{ id: string; role: string }>(await app.request({ method: 'GET', url: '/orgs/current', token: body.access_token }));
    expect(org).toMatchObject({ id: orgId, role: 'member' });

    // The event says where the user came from: the issuer and subject, and no password.
    const events = await app.infra.eventStore.readStream(`user-${me.id}`);
    const registered = events.find((e) => e.type === 'user_registered')!.data as Record<string, unknown>;
    expect(registered.sso).toEqual({ issuer: provider.issuer, subject: expect.any(String) });
    expect(registered.password_hash).toBe('');
    // With no password, no password opens the account.
    for (const password of ['', 'password', ' ']) {
      const login = await app.request({ method: 'POST', url: '/auth/login', payload: { email: USERS.ayse.email, password: password || 'x' } });
      expect(login.statusCode).toBe(401);
    }

    const again = await signIn(USERS.ayse.email);
    expect(again.res.statusCode, again.res.body).toBe(200);
    expect(json<{ created: boolean }>(again.res).created).toBe(false);
    const meAgain = json<{ id: string }>(await app.request({ method: 'GET', url: '/auth/me', token: json<{ access_token: string }>(again.res).access_token }));
    expect(meAgain.id).toBe(me.id);
    const members = json<Array<{ email: string; role: string }>>(await app.request({ method: 'GET', url: `/orgs/${orgId}/members`, token: manager.token }));
    expect(members.filter((m) => m.email === USERS.ayse.email)).toEqual([expect.objectContaining({ role: 'member' })]);
  });

  it('an address outside the configured domains gets an account but no organisation', async () => {
    const { res } = await signIn(USERS.zeynep.email);
    expect(res.statusCode, res.body).toBe(200);
    const current = await app.request({ method: 'GET', url: '/orgs/current', token: json<{ access_token: string }>(res).access_token });
    expect(current.statusCode).toBe(204);
  });

  it('an account registered with a password is linked when the provider vouches for the address; a password set before the address was ever confirmed stops opening it', async () => {
    // Someone registers the address first (it is never confirmed), and makes an API key.
    const registered = await app.signUp(USERS.mehmet.email, 'mehmet password 1');
    const key = await app.request({ method: 'POST', url: '/auth/tokens', token: registered.token, payload: { name: 'kept by whoever registered' } });
    expect(key.statusCode, key.body).toBe(201);
    const apiKey = json<{ token: string }>(key).token;
    expect((await app.request({ method: 'GET', url: '/jobs', token: apiKey })).statusCode).toBe(200);

    // The owner of the address signs in with the company account.
    const { res } = await signIn(USERS.mehmet.email);
    expect(res.statusCode, res.body).toBe(200);
    expect(json<{ created: boolean }>(res).created).toBe(false);
    const ownerToken = json<{ access_token: string }>(res).access_token;
    const me = json<{ id: string; email_verified: boolean }>(await app.request({ method: 'GET', url: '/auth/me', token: ownerToken }));
    expect(me.id).toBe(registered.id);
    expect(me.email_verified).toBe(true);
    expect((await app.infra.eventStore.readStream(`user-${me.id}`)).map((e) => e.type)).toEqual(expect.arrayContaining(['user_sso_linked', 'email_verified', 'unconfirmed_password_removed']));

    // Whoever registered first is out: the password, the session and the API key.
    const login = await app.request({ method: 'POST', url: '/auth/login', payload: { email: USERS.mehmet.email, password: 'mehmet password 1' } });
    expect(login.statusCode).toBe(401);
    expect((await app.request({ method: 'GET', url: '/auth/me', token: registered.token })).statusCode).toBe(401);
    expect((await app.request({ method: 'GET', url: '/jobs', token: apiKey })).statusCode).toBe(401);
    // The owner is in, and the audit log says what happened.
    expect((await app.request({ method: 'GET', url: '/jobs', token: ownerToken })).statusCode).toBe(200);
    // This run has no background projections: the entry is read from its stream.
    const [audit] = await app.infra.eventStore.readStream(auditStream(auditEntryId('auth.sso_linked', `sso-claim-${me.id}`)));
    expect(audit?.data).toEqual(expect.objectContaining({ action: 'auth.sso_linked', actor_id: me.id, object_id: me.id }));
    expect((audit?.data as { details: unknown }).details).toEqual(expect.objectContaining({ address: 'unconfirmed', password: 'removed', revoked: '1' }));
  });

  it('an account whose address was confirmed keeps its password and API keys when its company account is linked', async () => {
    const registered = await app.signUp(USERS.kept.email, 'kept password 1');
    await app.confirmEmail(registered.id);
    const key = json<{ token: string }>(await app.request({ method: 'POST', url: '/auth/tokens', token: registered.token, payload: { name: 'mine' } })).token;
    const { res } = await signIn(USERS.kept.email);
    expect(res.statusCode, res.body).toBe(200);
    expect(json<{ created: boolean }>(res).created).toBe(false);
    const login = await app.request({ method: 'POST', url: '/auth/login', payload: { email: USERS.kept.email, password: 'kept password 1' } });
    expect(login.statusCode, login.body).toBe(200);
    expect((await app.request({ method: 'GET', url: '/auth/me', token: registered.token })).statusCode).toBe(200);
    expect((await app.request({ method: 'GET', url: '/jobs', token: key })).statusCode).toBe(200);
    expect((await app.infra.eventStore.readStream(`user-${registered.id}`)).map((e) => e.type)).not.toContain('unconfirmed_password_removed');
  });

  it('two first sign-ins of the same company account at once make one user, one membership', async () => {
    // Both flows are through Dex first; only the callbacks race.
    const flows = await Promise.all([0, 1].map(async () => {
      const { url, cookie } = await start();
      return { cookie, back: await signInAtDex(url.href, USERS.twin.email) };
    }));
    const answers = await Promise.all(flows.map((f) => callback(f.cookie, f.back)));
    for (const a of answers) expect(a.statusCode, a.body).toBe(200);
    expect(answers.map((a) => json<{ created: boolean }>(a).created).sort()).toEqual([false, true]);
    const ids = await Promise.all(answers.map(async (a) => json<{ id: string }>(await app.request({ method: 'GET', url: '/auth/me', token: json<{ access_token: string }>(a).access_token })).id));
    expect(new Set(ids).size).toBe(1);
    expect((await app.identity.users.all()).filter((u) => u.email === USERS.twin.email)).toHaveLength(1);
    const members = json<Array<{ email: string }>>(await app.request({ method: 'GET', url: `/orgs/${orgId}/members`, token: manager.token }));
    expect(members.filter((m) => m.email === USERS.twin.email)).toHaveLength(1);
  });

  /** Nothing of the person exists in Baret: no user, no link, no e-mail claim. */
  async function nothingCreatedFor(email: string) {
    expect(await app.identity.users.byEmail(email)).toBeNull();
    const all = await app.identity.users.all();
    expect(all.map((u) => u.email)).not.toContain(email);
  }

  it('an address of BARET_ADMIN_EMAILS becomes admin by single sign-on only when the provider says it is verified (email_verified); else once its owner opens the link', async () => {
    // What Dex itself says about the two addresses, in ID tokens it signs.
    expect(claimsOf(await idTokenFor(provider, otherClient, USERS.boss.email, 'nonce-boss'))).toMatchObject({ email: USERS.boss.email, email_verified: false });
    expect(claimsOf(await idTokenFor(provider, otherClient, USERS.admin.email, 'nonce-admin'))).toMatchObject({ email: USERS.admin.email, email_verified: true });
    const meOf = async (token: string) => json<{ id: string; is_admin: boolean; email_verified: boolean }>(await app.request({ method: 'GET', url: '/auth/me', token }));
    const adminPage = async (token: string) => (await app.request({ method: 'GET', url: '/admin/users/quotas', token })).statusCode;

    // Unverified by the provider: an account, but no admin rights; a confirmation link is mailed.
    const unverified = await signIn(USERS.boss.email);
    expect(unverified.res.statusCode, unverified.res.body).toBe(200);
    expect(json<{ created: boolean }>(unverified.res).created).toBe(true);
    const bossToken = json<{ access_token: string }>(unverified.res).access_token;
    const boss = await meOf(bossToken);
    expect(boss).toMatchObject({ is_admin: false, email_verified: false });
    expect(await adminPage(bossToken)).toBe(403);
    const events = (await app.infra.eventStore.readStream(`user-${boss.id}`)).map((e) => e.type);
    expect(events).toContain('email_verification_requested');
    expect(events).not.toContain('user_promoted');
    // Signing in again changes nothing; opening the link mailed to the address does.
    const again = await signIn(USERS.boss.email);
    expect(await meOf(json<{ access_token: string }>(again.res).access_token)).toMatchObject({ id: boss.id, is_admin: false });
    await app.confirmEmail(boss.id);
    expect(await meOf(bossToken)).toMatchObject({ is_admin: true, email_verified: true });
    expect(await adminPage(bossToken)).toBe(200);

    // Verified by the provider: admin from the first sign-in.
    const verified = await signIn(USERS.admin.email);
    expect(verified.res.statusCode, verified.res.body).toBe(200);
    const adminToken = json<{ access_token: string }>(verified.res).access_token;
    expect(await meOf(adminToken)).toMatchObject({ is_admin: true, email_verified: true });
    expect(await adminPage(adminToken)).toBe(200);
  });

  it('a tampered ID token is refused with a clear message (Turkish and English), and nothing is created', async () => {
    provider.setTokenMode({ kind: 'tamper-signature' });
    try {
      const before = provider.altered();
      const { res } = await signIn(USERS.tampered.email, 'tr');
      expect(provider.altered()).toBe(before + 1);
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(json(res)).toMatchObject({ code: 'sso_token_signature', detail: 'Giriş reddedildi: kimlik belirtecinin imzası geçerli değil.' });
      const en = await signIn(USERS.tampered.email, 'en');
      expect(json(en.res)).toMatchObject({ code: 'sso_token_signature', detail: 'The sign-in was refused: the identity token’s signature is not valid.' });
    } finally {
      provider.setTokenMode({ kind: 'pass' });
    }
    await nothingCreatedFor(USERS.tampered.email);
    // The same person, with the token as Dex signed it, gets in — as a new user: it was the signature
    // that was refused, and the refusal had left nothing behind.
    const honest = await signIn(USERS.tampered.email);
    expect(honest.res.statusCode, honest.res.body).toBe(200);
    expect(json<{ created: boolean }>(honest.res).created).toBe(true);
  });

  it('an ID token Dex signed for another application is refused (wrong audience), and nothing is created', async () => {
    const { url, cookie } = await start('tr');
    const back = await signInAtDex(url.href, USERS.audience.email);
    // A real token of the same person with the nonce of this very flow, issued to "other-app".
    const foreign = await idTokenFor(provider, otherClient, USERS.audience.email, url.searchParams.get('nonce')!);
    expect(claimsOf(foreign)).toMatchObject({ aud: 'other-app', nonce: url.searchParams.get('nonce'), email: USERS.audience.email });
    provider.setTokenMode({ kind: 'replace-id-token', idToken: foreign });
    try {
      const res = await callback(cookie, back, 'tr');
      expect(res.statusCode).toBe(401);
      expect(json(res)).toMatchObject({ code: 'sso_token_audience', detail: 'Giriş reddedildi: kimlik belirteci başka bir uygulama için verilmiş.' });
    } finally {
      provider.setTokenMode({ kind: 'pass' });
    }
    await nothingCreatedFor(USERS.audience.email);
  });

  it('an expired ID token is refused (Baret’s clock moved past its expiry), and nothing is created', async () => {
    // Baret's clock is the real time when the flow starts (it stands still in between: the test clock),
    clock.set(new Date().toISOString());
    const { url, cookie } = await start();
    const back = await signInAtDex(url.href, USERS.expired.email);
    // and 5 minutes past the real time when the code comes back: Dex issues ID tokens for 2 minutes
    // here, so the token has expired (by more than the 30 s of tolerance), while the flow (10 minutes) has not.
    clock.set(new Date(Date.now() + 5 * 60_000).toISOString());
    const res = await callback(cookie, back, 'en');
    expect(res.statusCode).toBe(401);
    expect(json(res)).toMatchObject({ code: 'sso_token_expired', detail: 'The sign-in was refused: the identity token has expired. Please start again.' });
    await nothingCreatedFor(USERS.expired.email);
    clock.set(new Date().toISOString());
  });

  it('refuses a flow without its cookie, with another flow’s cookie, or used twice', async () => {
    const a = await start();
    const backA = await signInAtDex(a.url.href, USERS.zeynep.email);
    const noCookie = await callback(null, backA);
    expect(noCookie.statusCode).toBe(400);
    expect(json(noCookie)).toMatchObject({ code: 'sso_flow_invalid' });
    const b = await start();
    const crossed = await callback(b.cookie, backA);
    expect(crossed.statusCode).toBe(400);
    expect(json(crossed)).toMatchObject({ code: 'sso_flow_invalid' });
    const forged = await callback(`${a.cookie.slice(0, -4)}AAAA`, backA);
    expect(json(forged)).toMatchObject({ code: 'sso_flow_invalid' });
    expect((await callback(a.cookie, backA)).statusCode).toBe(200);
    const replay = await callback(a.cookie, backA);
    expect(replay.statusCode).toBe(401);
    expect(json(replay)).toMatchObject({ code: 'sso_code_invalid' });
    const denied = await callback(a.cookie, new URL(`${REDIRECT}?error=access_denied&state=${a.url.searchParams.get('state')}`));
    expect(json(denied)).toMatchObject({ code: 'sso_denied' });
  });

  it('a server set up with a wrong client secret tells the person to try later (503), not that their token is bad', async () => {
    const misconfigured = await startTestApp({ OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: baretClient.id, OIDC_CLIENT_SECRET: 'not-the-secret', OIDC_REDIRECT_URL: REDIRECT }, { clock, background: false });
    try {
      const res = await misconfigured.request({ method: 'POST', url: '/auth/sso/start', payload: {} });
      const cookie = /baret_sso=([^;]+)/.exec(String(res.headers['set-cookie']))![1]!;
      const back = await signInAtDex((res.json() as { authorization_url: string }).authorization_url, USERS.zeynep.email);
      const done = await misconfigured.request({ method: 'POST', url: '/auth/sso/callback', headers: { cookie: `baret_sso=${cookie}` }, payload: Object.fromEntries(back.searchParams.entries()) });
      expect(done.statusCode).toBe(503);
      expect(json(done)).toMatchObject({ code: 'sso_unavailable' });
    } finally {
      await misconfigured.close();
    }
  });

  it('with password login off, members cannot log in with a password (403, Turkish and English), single sign-on still works', async () => {
    const member = await signIn(USERS.ayse.email);
    const memberToken = json<{ access_token: string }>(member.res).access_token;
    const put = (token: string, password_login: boolean) => app.request({ method: 'PUT', url: `/orgs/${orgId}/sign-in`, token, payload: { password_login } });
    // A member may not change it; the manager may.
    expect((await put(memberToken, false)).statusCode).toBe(403);
    const off = await put(manager.token, false);
    expect(off.statusCode, off.body).toBe(200);
    expect(json(off)).toEqual({ password_login: false, sso_enabled: true });
    expect(json(await app.request({ method: 'GET', url: `/orgs/${orgId}/sign-in`, token: memberToken }))).toEqual({ password_login: false, sso_enabled: true });

    const tr = await app.request({ method: 'POST', url: '/auth/login', headers: { 'accept-language': 'tr' }, payload: { email: USERS.manager.email, password: 'manager password 123' } });
    expect(tr.statusCode).toBe(403);
    expect(tr.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(json(tr)).toMatchObject({ code: 'password_login_disabled', detail: 'Kuruluşunuz yalnızca şirket hesaplarıyla giriş yapıyor. Lütfen “Şirket hesabınızla giriş yapın” seçeneğini kullanın.' });
    const en = await app.request({ method: 'POST', url: '/auth/login', payload: { email: USERS.manager.email, password: 'manager password 123' } });
    expect(json(en)).toMatchObject({ code: 'password_login_disabled', detail: 'Your organisation signs in with company accounts only. Please use “Sign in with your company account”.' });
    // A wrong password is still just a failed login: the setting is told only to who knows the password.
    expect((await app.request({ method: 'POST', url: '/auth/login', payload: { email: USERS.manager.email, password: 'wrong password 123' } })).statusCode).toBe(401);
    // Someone outside the organisation logs in with a password as before.
    expect((await app.request({ method: 'POST', url: '/auth/login', payload: { email: USERS.kept.email, password: 'kept password 1' } })).statusCode).toBe(200);

    const sso = await signIn(USERS.manager.email);
    expect(sso.res.statusCode, sso.res.body).toBe(200);
    expect(json<{ created: boolean }>(sso.res).created).toBe(false);

    expect(json(await put(manager.token, true))).toEqual({ password_login: true, sso_enabled: true });
    expect((await app.request({ method: 'POST', url: '/auth/login', payload: { email: USERS.manager.email, password: 'manager password 123' } })).statusCode).toBe(200);
  });
});
