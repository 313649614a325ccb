/**
 * Single sign-on on the distributed run (issue 30): every service its own process over PostgreSQL,
 * Kafka, FerretDB and MinIO, behind the gateway, with Dex as the company directory. Identity owns
 * the flow; the gateway only routes — the flow's cookie and the callback pass through it. The same
 * acceptance as on the embedded run (tests/sso.e2e.spec.ts), shorter: first sign-in creates the
 * user in the domain's organisation as a member, the next finds them, a tampered token is refused
 * with nothing created, and password login off holds.
 */
import { engineInstalled, dexBinary, signInAtDex } from '@baret/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedEngines, startDistributedStack, type DistributedStack } from './helpers/distributed.js';
import { api } from './helpers/process.js';
import { startOidcProvider, type OidcProvider } from './helpers/sso.js';

const installed =
  Object.entries(distributedEngines()).every(([engine, ok]) => engineInstalled('single sign-on, distributed', ok, engine)) &&
  engineInstalled('single sign-on, distributed', dexBinary() !== null, 'Dex');

const REDIRECT = 'http://baret.test/login/sso';
const DOMAIN = 'baret-enerji.com.tr';
const users = [
  { email: `ayse@${DOMAIN}`, username: 'ayse', userID: '20000000-aaaa-4bbb-8ccc-000000000001' },
  { email: `tampered@${DOMAIN}`, username: 'tampered', userID: '20000000-aaaa-4bbb-8ccc-000000000002' },
  { email: `manager@${DOMAIN}`, username: 'manager', userID: '20000000-aaaa-4bbb-8ccc-000000000003' },
];

describe.skipIf(!installed)('single sign-on on the distributed run', () => {
  let stack: DistributedStack;
  let gateway: string;
  let provider: OidcProvider;
  let orgId: string;
  let manager: { token: string; id: string };

  /** Start at the gateway, sign in at Dex's form, post what came back with the cookie the gateway passed on. */
  async function signIn(email: string, lang = 'en') {
    const start = await fetch(`${gateway}/auth/sso/start`, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-language': lang }, body: '{}' });
    expect(start.status).toBe(200);
    const cookie = /baret_sso=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')?.[1];
    expect(cookie).toBeTruthy();
    const { authorization_url: url } = (await start.json()) as { authorization_url: string };
    const back = await signInAtDex(url, email);
    const res = await fetch(`${gateway}/auth/sso/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept-language': lang, cookie: `baret_sso=${cookie}` },
      body: JSON.stringify(Object.fromEntries(back.searchParams.entries())),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  const login = (email: string, password: string, lang = 'en') =>
    api<{ access_token?: string; code?: string; detail?: string }>(gateway, '/auth/login', { method: 'POST', headers: { 'accept-language': lang }, body: JSON.stringify({ email, password }) });

  beforeAll(async () => {
    provider = await startOidcProvider({ clients: [{ id: 'baret', secret: 'baret-distributed-secret', redirectURIs: [REDIRECT] }], users });
    stack = await startDistributedStack({
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: 'baret',
        OIDC_CLIENT_SECRET: 'baret-distributed-secret',
        OIDC_REDIRECT_URL: REDIRECT,
      },
      onLine: (name, line) => {
        if (/"level":"(error|fatal)"/.test(line)) process.stderr.write(`[${name}] ${line.slice(0, 2000)}\n`);
      },
    });
    gateway = stack.gateway;
    await api(gateway, '/auth/register', { method: 'POST', body: JSON.stringify({ email: users[2]!.email, password: 'manager password 1' }) });
    manager = { token: (await login(users[2]!.email, 'manager password 1')).body.access_token!, id: '' };
    orgId = (await api<{ id: string }>(gateway, '/orgs', { method: 'POST', token: manager.token, body: JSON.stringify({ name: 'Baret Enerji' }) })).body.id;
    // The operator names the organisation for the company's domain and restarts identity with it.
    stack.env.OIDC_ORG_DOMAINS = `${DOMAIN}=${orgId}`;
    await stack.stop('identity');
    await stack.start('identity');
  }, 600_000);

  afterAll(async () => {
    await stack?.close();
    await provider?.stop();
  }, 120_000);

  it('through the gateway: the first sign-in creates the member of the domain’s organisation, the next finds them', async () => {
    expect((await api<{ enabled: boolean }>(gateway, '/auth/sso')).body).toEqual({ enabled: true });
    const first = await signIn(users[0]!.email);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.created).toBe(true);
    const token = first.body.access_token as string;
    const me = await api<{ id: string; email: string }>(gateway, '/auth/me', { token });
    expect(me.body.email).toBe(users[0]!.email);
    expect((await api<{ id: string; role: string }>(gateway, '/orgs/current', { token })).body).toMatchObject({ id: orgId, role: 'member' });
    const again = await signIn(users[0]!.email);
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(false);
    expect((await api<{ id: string }>(gateway, '/auth/me', { token: again.body.access_token as string })).body.id).toBe(me.body.id);
    // The audit log keeps each single sign-on once (ADR 0023), where the organisation's managers read it.
    type Entry = { action: string; actor_id: string | null; outcome: string; details: Record<string, unknown> };
    let signIns: Entry[] = [];
    for (const until = Date.now() + 20_000; Date.now() < until && signIns.length < 2; await new Promise((r) => setTimeout(r, 250))) {
      const page = await api<{ entries: Entry[] }>(gateway, `/orgs/${orgId}/audit?action=auth.signed_in&actor=${me.body.id}`, { token: manager.token });
      signIns = page.body.entries ?? [];
    }
    expect(signIns).toHaveLength(2);
    expect(signIns.every((e) => e.outcome === 'success' && e.details.method === 'oidc')).toBe(true);
  });

  it('a tampered ID token is refused with its reason in Turkish, and nothing is created', async () => {
    provider.setTokenMode({ kind: 'tamper-signature' });
    try {
      const res = await signIn(users[1]!.email, 'tr');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'sso_token_signature', detail: 'Giriş reddedildi: kimlik belirtecinin imzası geçerli değil.' });
    } finally {
      provider.setTokenMode({ kind: 'pass' });
    }
    const members = await api<Array<{ email: string }>>(gateway, `/orgs/${orgId}/members`, { token: manager.token });
    expect(members.body.map((m) => m.email)).not.toContain(users[1]!.email);
    // Its address is still free: a registration with it succeeds.
    expect((await api(gateway, '/auth/register', { method: 'POST', body: JSON.stringify({ email: users[1]!.email, password: 'another password 1' }) })).status).toBe(201);
  });

  it('password login off: the manager’s right password gets 403 password_login_disabled, single sign-on still lets them in', async () => {
    const off = await api<{ password_login: boolean }>(gateway, `/orgs/${orgId}/sign-in`, { method: 'PUT', token: manager.token, body: JSON.stringify({ password_login: false }) });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    const refused = await login(users[2]!.email, 'manager password 1', 'tr');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'password_login_disabled' });
    const sso = await signIn(users[2]!.email);
    expect(sso.status, JSON.stringify(sso.body)).toBe(200);
    expect((await api<{ id: string; role: string }>(gateway, '/orgs/current', { token: sso.body.access_token as string })).body).toMatchObject({ id: orgId, role: 'manager' });
  });
});
