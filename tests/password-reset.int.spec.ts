import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, TestClock, type TestApp } from './helpers/app.js';
import { submitVideo } from './helpers/jobs.js';

/**
 * Password reset and e-mail confirmation (issue 29), through HTTP, with the mail read from the
 * outbox the embedded run keeps without SMTP_URL (the SMTP path is the same code; see
 * notifications.e2e.spec.ts).
 */
let app: TestApp;
const clock = new TestClock(new Date('2026-06-01T09:00:00.000Z'));

beforeAll(async () => {
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test', PUBLIC_URL: 'https://baret.example' }, { clock });
});
afterAll(() => app.close());

const mailsTo = async (to: string, kind: string) => (await app.notification.outbox.find({ where: { to, kind }, orderBy: [{ field: 'created_at' }] })).filter(Boolean);
const tokenIn = (text: string, page: string) => decodeURIComponent(new RegExp(`https://baret\\.example/${page}\\?token=(\\S+)`).exec(text)?.[1] ?? '');
const resetMail = async (to: string, n: number) => eventually(async () => ((await mailsTo(to, 'password_reset')).length === n ? (await mailsTo(to, 'password_reset'))[n - 1] : undefined));
const me = (token: string) => app.request({ method: 'GET', url: '/auth/me', token });
const login = (email: string, password: string) => app.request({ method: 'POST', url: '/auth/login', payload: { email, password } });

describe('password reset', () => {
  it('mails a single-use link for 1 hour; earlier links and every session end with the reset', async () => {
    const user = await app.signUp('lineman@example.com', 'old password 1');
    const otherSession = (await login('lineman@example.com', 'old password 1')).json() as { access_token: string };

    const known = await app.request({ method: 'POST', url: '/auth/password-reset', payload: { email: 'lineman@example.com' } });
    const unknown = await app.request({ method: 'POST', url: '/auth/password-reset', payload: { email: 'nobody@example.com' } });
    expect(known.statusCode).toBe(202);
    expect(unknown.statusCode).toBe(202);
    expect(unknown.body).toBe(known.body);
    expect(Object.keys(unknown.headers).sort()).toEqual(Object.keys(known.headers).sort());

    const first = await resetMail('lineman@example.com', 1);
    expect(first.subject).toBe('[Baret] Reset your password');
    const firstToken = tokenIn(first.text, 'reset-password');
    expect(firstToken.length).toBeGreaterThan(40);

    // A second request: only the newest link works.
    clock.advance(60_000);
    await app.request({ method: 'POST', url: '/auth/password-reset', payload: { email: 'LINEMAN@example.com' }, headers: { 'accept-language': 'tr' } });
    const second = await resetMail('lineman@example.com', 2);
    expect(second.subject).toBe('[Baret] Şifre sıfırlama');
    const token = tokenIn(second.text, 'reset-password');
    const stale = await app.request({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token: firstToken, password: 'new password 2' } });
    expect(stale.statusCode).toBe(400);
    expect(stale.json()).toMatchObject({ code: 'invalid_token' });

    expect((await app.request({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token, password: 'short' } })).statusCode).toBe(400);
    expect((await app.request({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token, password: 'new password 2' } })).statusCode).toBe(204);
    // once only
    expect((await app.request({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token, password: 'new password 3' } })).statusCode).toBe(400);

    // every earlier session ends; the old password no longer works, the new one does
    expect((await me(user.token)).statusCode).toBe(401);
    expect((await me(otherSession.access_token)).statusCode).toBe(401);
    expect((await login('lineman@example.com', 'old password 1')).statusCode).toBe(401);
    const fresh = await login('lineman@example.com', 'new password 2');
    expect(fresh.statusCode).toBe(200);
    expect((await me((fresh.json() as { access_token: string }).access_token)).statusCode).toBe(200);
    expect(await mailsTo('nobody@example.com', 'password_reset')).toEqual([]);
  });

  it('says in the mail what happens to API keys; a reset keeps them unless asked to revoke them all, and the audit log records which', async () => {
    const user = await app.signUp('suspicious@example.com', 'old password 1');
    const key = async (name: string) => ((await app.request({ method: 'POST', url: '/auth/tokens', token: user.token, payload: { name } })).json() as { token: string }).token;
    const [first, second] = [await key('ci'), await key('script')];
    const resetWith = async (n: number, extra: Record<string, unknown>, password: string) => {
      await app.request({ method: 'POST', url: '/auth/password-reset', payload: { email: 'suspicious@example.com' }, remoteAddress: '127.9.2.1' });
      const mail = await resetMail('suspicious@example.com', n);
      expect(mail.text).toMatch(/Also revoke all my API keys.*keep your API keys working/s);
      clock.advance(60_000);
      return app.request({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token: tokenIn(mail.text, 'reset-password'), password, ...extra } });
    };
    const auditOf = (api_keys: string) =>
      eventually(async () => (await app.infra.documents.collection('identity_audit').find({ where: { action: 'auth.password_reset', object_id: user.id } })).find((e) => (e.details as Record<string, string>).api_keys === api_keys));

    // A reset as after a forgotten password: the keys keep working.
    expect((await resetWith(1, {}, 'new password 2')).statusCode).toBe(204);
    expect((await me(first)).statusCode).toBe(200);
    expect(await auditOf('kept')).toMatchObject({ actor_id: user.id, object_type: 'user', outcome: 'success', details: { api_keys: 'kept', revoked: '0' } });

    // A reset after a suspected compromise: every key ends, in one action.
    const refused = await resetWith(2, { revoke_api_keys: 'yes' }, 'new password 3');
    expect(refused.statusCode).toBe(400);
    expect((await me(second)).statusCode).toBe(200);
    // A made-up link revokes nothing.
    const forged = await app.request({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token: `${user.id}.${'A'.repeat(43)}`, password: 'new password 3', revoke_api_keys: true } });
    expect(forged.json()).toMatchObject({ status: 400, code: 'invalid_token' });
    expect((await me(second)).statusCode).toBe(200);
    clock.advance(60_000);
    await app.request({ method: 'POST', url: '/auth/password-reset', payload: { email: 'suspicious@example.com' }, remoteAddress: '127.9.2.1' });
    const mail = await resetMail('suspicious@example.com', 3);
    const done = await app.request({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token: tokenIn(mail.text, 'reset-password'), password: 'new password 3', revoke_api_keys: true } });
    expect(done.statusCode).toBe(204);
    expect((await me(first)).statusCode).toBe(401);
    expect((await me(second)).statusCode).toBe(401);
    const session = ((await login('suspicious@example.com', 'new password 3')).json() as { access_token: string }).access_token;
    expect((await app.request({ method: 'GET', url: '/auth/tokens', token: session })).json()).toEqual([]);
    expect(await auditOf('revoked')).toMatchObject({ actor_id: user.id, details: { api_keys: 'revoked', revoked: '2' } });
  });

  it('expires a link after 1 hour, and refuses made-up tokens', async () => {
    await app.signUp('slow@example.com', 'old password 1');
    await app.request({ method: 'POST', url: '/auth/password-reset', payload: { email: 'slow@example.com' } });
    const token = tokenIn((await resetMail('slow@example.com', 1)).text, 'reset-password');
    clock.advance(61 * 60_000);
    expect((await app.request({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token, password: 'new password 2' } })).statusCode).toBe(400);
    expect((await login('slow@example.com', 'old password 1')).statusCode).toBe(200);
    const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
    expect((await app.request({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token: forged, password: 'new password 2' } })).statusCode).toBe(400);
    expect((await app.request({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token: 'not-a-token-at-all', password: 'new password 2' } })).json()).toMatchObject({ code: 'invalid_token' });
  });

  it('sends at most 3 links an hour to one account, and rate-limits requests per address', async () => {
    await app.signUp('target@example.com');
    for (let i = 0; i < 4; i++) {
      const res = await app.request({ method: 'POST', url: '/auth/password-reset', payload: { email: 'target@example.com' }, remoteAddress: `127.9.0.${i + 1}` });
      expect(res.statusCode).toBe(202);
      await resetMail('target@example.com', Math.min(i + 1, 3));
    }
    expect(await mailsTo('target@example.com', 'password_reset')).toHaveLength(3);
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await app.request({ method: 'POST', url: '/auth/password-reset', payload: { email: 'x@example.com' }, remoteAddress: '127.9.1.1' })).statusCode);
    expect(codes).toEqual([202, 202, 202, 202, 202, 429]);
  });
});

describe('e-mail confirmation', () => {
  it('mails a link at registration; unverified users see it in /auth/me, and an admin can require it before analyses', async () => {
    const admin = await app.signUp('admin@baret.test');
    const user = await app.signUp('new@example.com');
    expect((await me(user.token)).json()).toMatchObject({ email_verified: false });
    const mail = await eventually(async () => (await mailsTo('new@example.com', 'email_verification'))[0]);
    expect(mail.subject).toBe('[Baret] Confirm your e-mail address');

    expect((await app.request({ method: 'PUT', url: '/admin/settings', token: user.token, payload: { require_email_verification: true } })).statusCode).toBe(403);
    expect((await app.request({ method: 'PUT', url: '/admin/settings', token: admin.token, payload: { require_email_verification: true } })).json()).toEqual({ require_email_verification: true });
    const refused = await submitVideo(app, user.token, Buffer.from('not even a video'));
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'email_not_verified' });

    expect((await app.request({ method: 'POST', url: '/auth/verify-email', payload: { token: 'x'.repeat(20) } })).statusCode).toBe(400);
    expect((await app.request({ method: 'POST', url: '/auth/verify-email', payload: { token: tokenIn(mail.text, 'verify-email') } })).statusCode).toBe(204);
    expect((await me(user.token)).json()).toMatchObject({ email_verified: true });
    // Past the check: the upload itself is judged now (not a video).
    expect((await submitVideo(app, user.token, Buffer.from('not even a video'))).statusCode).toBe(415);
  });
});
