import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp } from './helpers/app.js';

interface Problem {
  status: number;
  detail: string;
  code?: string;
}

let app: TestApp;
let admin: { token: string; id: string };
beforeAll(async () => {
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test' });
  admin = await app.signUp('admin@baret.test', 'admin password 1', 'Ada Admin');
});
afterAll(() => app.close());

let n = 0;
const fresh = () => `user${++n}@example.com`;

describe('POST /auth/register', () => {
  it('creates a free-plan user and never returns the password', async () => {
    const res = await app.request({ method: 'POST', url: '/auth/register', payload: { email: 'New.User@Example.com', password: 'longenough', full_name: 'Yeni Kullanıcı' } });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      email: 'New.User@Example.com',
      full_name: 'Yeni Kullanıcı',
      is_admin: false,
      last_login_at: null,
      quota: { plan_name: 'free', lifetime_limit: 2, daily_limit: null, monthly_limit: null, lifetime_used: 0, can_analyze: true },
    });
    expect(res.body).not.toMatch(/password|longenough|scrypt/);
  });

  it('compares emails case-insensitively: a second account for the same address is refused', async () => {
    const res = await app.request({ method: 'POST', url: '/auth/register', payload: { email: 'new.user@EXAMPLE.com', password: 'longenough' } });
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect((res.json() as Problem).detail).toMatch(/already exists/);
  });

  it.each([
    [{ email: 'not-an-email', password: 'longenough' }, /valid email/],
    [{ email: 'a@example.com', password: 'short' }, /at least 8 characters/],
    [{ password: 'longenough' }, /email is required/],
    [{ email: 'b@example.com' }, /password is required/],
    [{ email: 'someone@mailinator.com', password: 'longenough' }, /[Dd]isposable/],
  ])('refuses %j with a clear 400', async (payload, message) => {
    const res = await app.request({ method: 'POST', url: '/auth/register', payload });
    expect(res.statusCode).toBe(400);
    expect((res.json() as Problem).detail).toMatch(message);
  });

  it('makes configured admin addresses admins', async () => {
    const res = await app.request({ method: 'GET', url: '/auth/me', token: admin.token });
    expect(res.json()).toMatchObject({ email: 'admin@baret.test', is_admin: true, full_name: 'Ada Admin' });
  });
});

describe('POST /auth/login', () => {
  it('answers an access token that authenticates, and records the login', async () => {
    const email = fresh();
    await app.request({ method: 'POST', url: '/auth/register', payload: { email, password: 'password 123' } });
    const res = await app.request({ method: 'POST', url: '/auth/login', payload: { email: email.toUpperCase(), password: 'password 123' } });
    expect(res.statusCode).toBe(200);
    const { access_token, token_type, expires_in } = res.json() as { access_token: string; token_type: string; expires_in: number };
    expect(token_type).toBe('bearer');
    expect(expires_in).toBe(12 * 3600);
    const me = await app.request({ method: 'GET', url: '/auth/me', token: access_token });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ email, last_login_at: app.clock.now().toISOString() });
  });

  it('answers the same for an unknown email and a wrong password', async () => {
    const email = fresh();
    await app.request({ method: 'POST', url: '/auth/register', payload: { email, password: 'password 123' } });
    const wrong = await app.request({ method: 'POST', url: '/auth/login', payload: { email, password: 'nope nope' } });
    const unknown = await app.request({ method: 'POST', url: '/auth/login', payload: { email: 'nobody@example.com', password: 'nope nope' } });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect((wrong.json() as Problem).detail).toBe((unknown.json() as Problem).detail);
    expect((wrong.json() as Problem).detail).toBe('Login failed. Please check your details.');
  });

  it('pauses an account after repeated failures, even for the right password, until the window passes', async () => {
    const email = fresh();
    await app.request({ method: 'POST', url: '/auth/register', payload: { email, password: 'password 123' } });
    for (let i = 0; i < 5; i++) {
      expect((await app.request({ method: 'POST', url: '/auth/login', payload: { email, password: 'bad guess' } })).statusCode).toBe(401);
    }
    const blocked = await app.request({ method: 'POST', url: '/auth/login', payload: { email, password: 'password 123' } });
    expect(blocked.statusCode).toBe(429);
    expect((blocked.json() as Problem).detail).toMatch(/Too many failed login attempts/);
    app.clock.advance(16 * 60_000);
    expect((await app.request({ method: 'POST', url: '/auth/login', payload: { email, password: 'password 123' } })).statusCode).toBe(200);
  });

  it('rate-limits logins per address', async () => {
    const limited = await startTestApp();
    try {
      const codes: number[] = [];
      for (let i = 0; i < 22; i++) {
        codes.push((await limited.request({ method: 'POST', url: '/auth/login', payload: { email: `x${i}@example.com`, password: 'whatever1' } })).statusCode);
      }
      expect(codes.slice(0, 20).every((c) => c === 401)).toBe(true);
      expect(codes.slice(20)).toEqual([429, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe('GET /auth/me', () => {
  it('refuses anonymous callers, malformed headers and forged tokens', async () => {
    expect((await app.request({ method: 'GET', url: '/auth/me' })).statusCode).toBe(401);
    expect((await app.request({ method: 'GET', url: '/auth/me', headers: { authorization: 'Basic abc' } })).statusCode).toBe(401);
    expect((await app.request({ method: 'GET', url: '/auth/me', token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl' })).statusCode).toBe(401);
    expect((await app.request({ method: 'GET', url: '/auth/me', token: 'baret_deadbeef_notakey' })).statusCode).toBe(401);
  });
});

describe('API keys', () => {
  it('creates a key shown once, authenticates every user route with it, and tracks last use', async () => {
    const user = await app.signUp(fresh());
    const created = await app.request({ method: 'POST', url: '/auth/tokens', token: user.token, payload: { name: '  field tablet  ' } });
    expect(created.statusCode).toBe(201);
    const key = created.json() as { id: string; name: string; token: string; token_prefix: string; last_used_at: string | null };
    expect(key.name).toBe('field tablet');
    expect(key.token.startsWith(key.token_prefix)).toBe(true);
    expect(key.last_used_at).toBeNull();

    const list = await app.request({ method: 'GET', url: '/auth/tokens', token: user.token });
    expect(list.json()).toEqual([{ id: key.id, name: 'field tablet', token_prefix: key.token_prefix, created_at: expect.any(String), last_used_at: null }]);
    expect(list.body).not.toContain(key.token);

    const me = await app.request({ method: 'GET', url: '/auth/me', token: key.token });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id: user.id });
    // Keys are listed with a login (an API key cannot manage keys, issue 37).
    const after = (await app.request({ method: 'GET', url: '/auth/tokens', token: user.token })).json() as Array<{ last_used_at: string }>;
    expect(after[0]!.last_used_at).toBe(app.clock.now().toISOString());
  });

  it.each([['   '], ['x'.repeat(101)], ['']])('refuses the name %j', async (name) => {
    const user = await app.signUp(fresh());
    const res = await app.request({ method: 'POST', url: '/auth/tokens', token: user.token, payload: { name } });
    expect(res.statusCode).toBe(400);
  });

  it('accepts a 100-character name', async () => {
    const user = await app.signUp(fresh());
    expect((await app.request({ method: 'POST', url: '/auth/tokens', token: user.token, payload: { name: 'k'.repeat(100) } })).statusCode).toBe(201);
  });

  it('stops a deleted key at once; another user can neither see nor delete a key', async () => {
    const owner = await app.signUp(fresh());
    const other = await app.signUp(fresh());
    const key = (await app.request({ method: 'POST', url: '/auth/tokens', token: owner.token, payload: { name: 'ci' } })).json() as { id: string; token: string };

    expect((await app.request({ method: 'GET', url: '/auth/tokens', token: other.token })).json()).toEqual([]);
    const foreign = await app.request({ method: 'DELETE', url: `/auth/tokens/${key.id}`, token: other.token });
    expect(foreign.statusCode).toBe(404);
    expect((await app.request({ method: 'GET', url: '/auth/me', token: key.token })).statusCode).toBe(200);

    expect((await app.request({ method: 'DELETE', url: `/auth/tokens/${key.id}`, token: owner.token })).statusCode).toBe(204);
    expect((await app.request({ method: 'GET', url: '/auth/me', token: key.token })).statusCode).toBe(401);
    expect((await app.request({ method: 'DELETE', url: `/auth/tokens/${key.id}`, token: owner.token })).statusCode).toBe(404);
  });

  it('needs a login', async () => {
    expect((await app.request({ method: 'GET', url: '/auth/tokens' })).statusCode).toBe(401);
    expect((await app.request({ method: 'POST', url: '/auth/tokens', payload: { name: 'x' } })).statusCode).toBe(401);
    expect((await app.request({ method: 'DELETE', url: '/auth/tokens/abc' })).statusCode).toBe(401);
  });
});

describe('admin routes check is_admin on the server', () => {
  const adminRoutes = [
    { method: 'GET', url: '/admin/users/quotas' },
    { method: 'PATCH', url: '/admin/users/someone/quota', payload: { daily_limit: 1 } },
    { method: 'DELETE', url: '/admin/users/someone' },
  ] as const;

  it.each(adminRoutes)('$method $url: 401 anonymous, 403 for a user and for a user’s API key', async (route) => {
    const user = await app.signUp(fresh());
    const key = (await app.request({ method: 'POST', url: '/auth/tokens', token: user.token, payload: { name: 'k' } })).json() as { token: string };
    expect((await app.request({ ...route })).statusCode).toBe(401);
    const asUser = await app.request({ ...route, token: user.token });
    expect(asUser.statusCode).toBe(403);
    expect((asUser.json() as Problem).detail).toMatch(/admin rights/);
    expect((await app.request({ ...route, token: key.token })).statusCode).toBe(403);
  });

  it('lists every user with quota, and an admin API key works too', async () => {
    const key = (await app.request({ method: 'POST', url: '/auth/tokens', token: admin.token, payload: { name: 'admin script' } })).json() as { token: string };
    const res = await app.request({ method: 'GET', url: '/admin/users/quotas', token: key.token });
    expect(res.statusCode).toBe(200);
    const rows = res.json() as Array<{ user_id: string; email: string; quota: { plan_name: string } }>;
    expect(rows.find((r) => r.user_id === admin.id)).toMatchObject({ email: 'admin@baret.test', full_name: 'Ada Admin', quota: { plan_name: 'free' } });
  });
});

describe('PATCH /admin/users/{id}/quota', () => {
  const patch = (id: string, payload: unknown) => app.request({ method: 'PATCH', url: `/admin/users/${id}/quota`, token: admin.token, payload: payload as object });

  it('changes only the fields sent; null means unlimited; the user sees it', async () => {
    const user = await app.signUp(fresh());
    const res = await patch(user.id, { plan_name: 'pro', daily_limit: 10, monthly_limit: 100, lifetime_limit: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ user_id: user.id, quota: { plan_name: 'pro', daily_limit: 10, monthly_limit: 100, lifetime_limit: null, can_analyze: true } });
    const partial = await patch(user.id, { daily_limit: 3 });
    expect(partial.json()).toMatchObject({ quota: { plan_name: 'pro', daily_limit: 3, monthly_limit: 100, lifetime_limit: null } });
    const me = (await app.request({ method: 'GET', url: '/auth/me', token: user.token })).json() as { quota: unknown };
    expect(me.quota).toMatchObject({ plan_name: 'pro', daily_limit: 3, monthly_limit: 100, lifetime_limit: null });
  });

  it('puts an empty plan name back on the default plan', async () => {
    const user = await app.signUp(fresh());
    await patch(user.id, { plan_name: 'pro' });
    expect((await patch(user.id, { plan_name: null })).json()).toMatchObject({ quota: { plan_name: 'free' } });
    await patch(user.id, { plan_name: 'pro' });
    expect((await patch(user.id, { plan_name: '' })).json()).toMatchObject({ quota: { plan_name: 'free' } });
  });

  it.each([{ daily_limit: -1 }, { monthly_limit: 1.5 }, { lifetime_limit: 'ten' }, { unknown_field: 1 }])('refuses %j with 400', async (payload) => {
    const user = await app.signUp(fresh());
    const res = await patch(user.id, payload);
    expect(res.statusCode).toBe(400);
  });

  it('answers 404 for a user that does not exist', async () => {
    expect((await patch('00000000-0000-0000-0000-000000000000', { daily_limit: 1 })).statusCode).toBe(404);
  });
});

describe('quota reservations for the job service', () => {
  it('lets exactly 2 of 50 concurrent reservations through when 2 units are left', async () => {
    const user = await app.signUp(fresh());
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => app.quota.client.reserve(user.id, `job-${i}`)));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(2);
    expect(outcomes.filter((o) => !o.ok).every((o) => !o.ok && o.reason === 'lifetime')).toBe(true);
    const me = (await app.request({ method: 'GET', url: '/auth/me', token: user.token })).json() as { quota: { lifetime_used: number; can_analyze: boolean } };
    expect(me.quota).toMatchObject({ lifetime_used: 2, can_analyze: false });
  });

  it('reserves once per job id, even when asked concurrently, and gives the unit back on release', async () => {
    const user = await app.signUp(fresh());
    const same = await Promise.all(Array.from({ length: 10 }, () => app.quota.client.reserve(user.id, 'the-job')));
    expect(same.every((o) => o.ok)).toBe(true);
    expect((await app.quota.client.getQuota(user.id)).lifetime_used).toBe(1);
    await app.quota.client.release(user.id, 'the-job', 'cancelled');
    await app.quota.client.release(user.id, 'the-job', 'cancelled');
    expect((await app.quota.client.getQuota(user.id)).lifetime_used).toBe(0);
  });

  it('rolls daily usage over at 00:00 UTC and monthly usage on the 1st', async () => {
    const user = await app.signUp(fresh());
    await app.request({ method: 'PATCH', url: `/admin/users/${user.id}/quota`, token: admin.token, payload: { daily_limit: 1, monthly_limit: 2, lifetime_limit: null } });
    const saved = app.clock.now();
    try {
      app.clock.set('2026-04-29T23:30:00.000Z');
      expect((await app.quota.client.reserve(user.id, 'd1')).ok).toBe(true);
      expect(await app.quota.client.reserve(user.id, 'd1b')).toEqual({ ok: false, reason: 'daily' });
      app.clock.set('2026-04-30T00:00:00.000Z');
      expect((await app.quota.client.getQuota(user.id)).daily_used).toBe(0);
      expect((await app.quota.client.reserve(user.id, 'd2')).ok).toBe(true);
      app.clock.set('2026-04-30T23:59:59.000Z');
      expect(await app.quota.client.reserve(user.id, 'd2b')).toEqual({ ok: false, reason: 'monthly' });
      app.clock.set('2026-05-01T00:00:00.000Z');
      expect(await app.quota.client.getQuota(user.id)).toMatchObject({ daily_used: 0, monthly_used: 0, lifetime_used: 2, can_analyze: true });
      expect((await app.quota.client.reserve(user.id, 'd3')).ok).toBe(true);
    } finally {
      app.clock.set(saved.toISOString());
    }
  });
});

describe('DELETE /admin/users/{id}', () => {
  it('deletes the user with their keys and sessions; the address can register again', async () => {
    const email = fresh();
    const user = await app.signUp(email);
    const key = (await app.request({ method: 'POST', url: '/auth/tokens', token: user.token, payload: { name: 'k' } })).json() as { token: string };
    expect((await app.request({ method: 'DELETE', url: `/admin/users/${user.id}`, token: admin.token })).statusCode).toBe(204);
    expect((await app.request({ method: 'GET', url: '/auth/me', token: user.token })).statusCode).toBe(401);
    expect((await app.request({ method: 'GET', url: '/auth/me', token: key.token })).statusCode).toBe(401);
    expect((await app.request({ method: 'POST', url: '/auth/login', payload: { email, password: 'correct horse battery' } })).statusCode).toBe(401);
    const rows = (await app.request({ method: 'GET', url: '/admin/users/quotas', token: admin.token })).json() as Array<{ user_id: string }>;
    expect(rows.some((r) => r.user_id === user.id)).toBe(false);
    // The quota service reacts to the event: the quota is closed.
    await eventually(async () => ((await app.quota.client.getQuota(user.id)).can_analyze ? undefined : true));
    expect((await app.request({ method: 'DELETE', url: `/admin/users/${user.id}`, token: admin.token })).statusCode).toBe(404);
    const again = await app.request({ method: 'POST', url: '/auth/register', payload: { email, password: 'another password' } });
    expect(again.statusCode).toBe(201);
  });

  it('does not let an admin delete themself', async () => {
    const res = await app.request({ method: 'DELETE', url: `/admin/users/${admin.id}`, token: admin.token });
    expect(res.statusCode).toBe(403);
    expect((res.json() as Problem).detail).toMatch(/own account/);
  });
});

describe('POST /contact and POST /usage/request-upgrade', () => {
  let addresses = 0;
  /** A client address of the documentation range (RFC 5737) no other test uses. */
  const nextAddress = (): string => `192.0.2.${++addresses}`;

  it('stores a contact message and delivers it to the team', async () => {
    const res = await app.request({ method: 'POST', url: '/contact', payload: { name: '  ', email: 'crew@example.com', subject: '', message: '  Merhaba, bir sorum var.  ' } });
    expect(res.statusCode).toBe(202);
    const { message_id } = res.json() as { message_id: string };
    const events = await app.infra.eventStore.readStream(`contact-${message_id}`);
    expect(events[0]!.data).toMatchObject({ name: null, subject: null, email: 'crew@example.com', message: 'Merhaba, bir sorum var.' });
    const delivered = await eventually(async () => (await app.notification.outbox.find({ search: { text: 'crew@example.com', fields: ['reply_to'] } }))[0]);
    expect(delivered).toMatchObject({ kind: 'contact', to: 'team@baret.app', channel: 'log' });
    expect(delivered.text).toContain('Merhaba, bir sorum var.');
  });

  it.each([
    [{ email: '', message: 'long enough message' }, 400],
    [{ message: 'long enough message' }, 400],
    [{ email: 'a@example.com', message: 'too short' }, 400],
    [{ email: 'a@example.com', message: 'x'.repeat(2001) }, 400],
    [{ email: 'a@example.com', message: `  ${'x'.repeat(2000)}  ` }, 202],
  ])('validates %#', async (payload, status) => {
    // Each case from its own address, so the contact rate limit (5 per address in 10 minutes)
    // never mixes them up (a fresh app per case took over 30 s to start on a busy machine).
    const res = await app.request({ method: 'POST', url: '/contact', payload, remoteAddress: nextAddress() });
    expect(res.statusCode).toBe(status);
  });

  it('rate-limits contact messages per address', async () => {
    const remoteAddress = nextAddress();
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push((await app.request({ method: 'POST', url: '/contact', payload: { email: 'a@example.com', message: 'hello hello hello' }, remoteAddress })).statusCode);
    expect(codes).toEqual([202, 202, 202, 202, 202, 429]);
    // Another address is not limited by the first one's messages.
    expect((await app.request({ method: 'POST', url: '/contact', payload: { email: 'a@example.com', message: 'hello hello hello' }, remoteAddress: nextAddress() })).statusCode).toBe(202);
  });

  it('takes an upgrade request from a user and delivers it to the team', async () => {
    const email = fresh();
    const user = await app.signUp(email);
    expect((await app.request({ method: 'POST', url: '/usage/request-upgrade', payload: { origin: 'pricing', message: null } })).statusCode).toBe(401);
    expect((await app.request({ method: 'POST', url: '/usage/request-upgrade', token: user.token, payload: { origin: 'elsewhere' } })).statusCode).toBe(400);
    expect((await app.request({ method: 'POST', url: '/usage/request-upgrade', token: user.token, payload: { origin: 'profile', message: 'x'.repeat(2001) } })).statusCode).toBe(400);
    const ok = await app.request({ method: 'POST', url: '/usage/request-upgrade', token: user.token, payload: { origin: 'profile', message: '  We have 40 crews.  ' } });
    expect(ok.statusCode).toBe(202);
    const delivered = await eventually(async () => (await app.notification.outbox.find({ where: { kind: 'upgrade_request', reply_to: email } }))[0]);
    expect(delivered.text).toContain('Origin: profile');
    expect(delivered.text).toContain('We have 40 crews.');
  });
});
