import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, publicUrlOf } from '@baret/platform';
import { trustedOrigin } from '../services/notification/src/service.js';
import { eventually, startTestApp, type TestApp } from './helpers/app.js';

/**
 * Mail without an SMTP server (issue 40): links follow the server's own address instead of a fixed
 * localhost:8080, and an admin can help a person whose mail reached nobody — confirm their address
 * or mail them a new link — in Turkish and English. Mails are read from the outbox the embedded run
 * keeps without SMTP_URL.
 */
let app: TestApp;
let admin: string;

beforeAll(async () => {
  // No PUBLIC_URL, no SMTP_URL, on port 3000.
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test', PORT: '3000' });
  admin = (await app.signUp('admin@baret.test')).token;
});
afterAll(() => app?.close());

const mailsTo = async (to: string, kind: string) => app.notification.outbox.find({ where: { to, kind }, orderBy: [{ field: 'created_at' }] });
const mailCount = async (to: string, kind: string, n: number) => eventually(async () => ((await mailsTo(to, kind)).length === n ? (await mailsTo(to, kind))[n - 1] : undefined));
const register = (email: string, lang: 'tr' | 'en', host: string) =>
  app.request({ method: 'POST', url: '/auth/register', remoteAddress: `127.9.0.${email.length}`, headers: { host, 'accept-language': lang }, payload: { email, password: 'correct horse battery' } });
const adminMail = (email: string, action: string, lang: 'tr' | 'en' = 'en') =>
  app.request({ method: 'POST', url: '/admin/accounts/mail', token: admin, headers: { 'accept-language': lang, host: 'baret.lan:3000' }, payload: { email, action } });

describe('links in mails', () => {
  it('follow PORT when PUBLIC_URL is unset', () => {
    expect(publicUrlOf(parseConfig({ PORT: '3000' }))).toBe('http://localhost:3000');
    expect(publicUrlOf(parseConfig({ PORT: '3000', PUBLIC_URL: 'https://baret.example/' }))).toBe('https://baret.example');
  });

  it.each([
    ['tr', 'tr-user@example.com', '[Baret] E-posta adresinizi doğrulayın'],
    ['en', 'en-user@example.com', '[Baret] Confirm your e-mail address'],
  ] as const)('point at the address the request came to when PUBLIC_URL is unset (%s)', async (lang, email, subject) => {
    expect((await register(email, lang, 'baret.lan:3000')).statusCode).toBe(201);
    const mail = await mailCount(email, 'email_verification', 1);
    expect(mail.subject).toBe(subject);
    expect(mail.text).toMatch(/http:\/\/baret\.lan:3000\/verify-email\?token=\S+/);
    expect(mail.text).not.toContain('localhost:8080');
  });

  it('point at the address the person signed up from in their later mails too (a quota reached), not at localhost (issue 54)', async () => {
    const email = 'loopback-user@example.com';
    expect((await register(email, 'en', '127.0.0.1:3000')).statusCode).toBe(201);
    await mailCount(email, 'email_verification', 1);
    const login = await app.request({ method: 'POST', url: '/auth/login', payload: { email, password: 'correct horse battery' } });
    const token = (login.json() as { access_token: string }).access_token;
    const me = (await app.request({ method: 'GET', url: '/auth/me', token })).json() as { id: string };
    const prefs = await app.request({ method: 'PUT', url: '/notifications/preferences', token, payload: { preferences: { quota: { email: true } } } });
    expect(prefs.statusCode, prefs.body).toBe(200);
    const limit = await app.request({ method: 'PATCH', url: `/admin/users/${me.id}/quota`, token: admin, payload: { lifetime_limit: 1 } });
    expect(limit.statusCode, limit.body).toBe(200);
    expect((await app.quota.client.reserve(me.id, 'job-loopback')).ok).toBe(true);
    const mail = await mailCount(email, 'quota', 1);
    expect(mail.text).toMatch(/http:\/\/127\.0\.0\.1:3000\/dashboard\/profile/);
    expect(mail.text).not.toContain('localhost');
  });

  it('link to a host a request named only when no one can be sent the mail, to loopback, or to an allowed origin', () => {
    expect(trustedOrigin('http://baret.lan:3000', { delivered: false, allowed: [] })).toBe(true);
    expect(trustedOrigin('https://evil.example', { delivered: true, allowed: [] })).toBe(false);
    expect(trustedOrigin('http://localhost:3000', { delivered: true, allowed: [] })).toBe(true);
    expect(trustedOrigin('https://baret.corp', { delivered: true, allowed: ['https://baret.corp/'] })).toBe(true);
    expect(trustedOrigin('javascript:alert(1)', { delivered: false, allowed: [] })).toBe(false);
    expect(trustedOrigin('http://a@b.example', { delivered: false, allowed: [] })).toBe(false);
  });
});

describe('an admin helps a person whose mail reached nobody', () => {
  it('marks the address confirmed, so the banner goes away', async () => {
    const user = await app.signUp('field@example.com');
    expect(((await app.request({ method: 'GET', url: '/auth/me', token: user.token })).json() as { email_verified: boolean }).email_verified).toBe(false);
    const res = await adminMail('field@example.com', 'verify');
    expect(res.statusCode, res.body).toBe(202);
    expect(((await app.request({ method: 'GET', url: '/auth/me', token: user.token })).json() as { email_verified: boolean }).email_verified).toBe(true);
    // again: nothing changes, still accepted
    expect((await adminMail('field@example.com', 'verify')).statusCode).toBe(202);
  });

  it.each(['tr', 'en'] as const)('mails a confirmation or reset link again, in a new mail (%s)', async (lang) => {
    const email = `again-${lang}@example.com`;
    expect((await register(email, lang, 'baret.lan:3000')).statusCode).toBe(201);
    await mailCount(email, 'email_verification', 1);
    expect((await adminMail(email, 'email_verification', lang)).statusCode).toBe(202);
    const second = await mailCount(email, 'email_verification', 2);
    expect(second.text).toMatch(/http:\/\/baret\.lan:3000\/verify-email\?token=/);
    expect((await adminMail(email, 'password_reset', lang)).statusCode).toBe(202);
    const reset = await mailCount(email, 'password_reset', 1);
    expect(reset.subject).toBe(lang === 'tr' ? '[Baret] Şifre sıfırlama' : '[Baret] Reset your password');
  });

  it('answers an unknown address with 404 in the reader’s language, and anyone but an admin with 403', async () => {
    const tr = await adminMail('nobody@example.com', 'verify', 'tr');
    expect(tr.statusCode).toBe(404);
    expect(tr.json().detail).toBe('Bu adresle kayıtlı bir hesap yok.');
    expect((await adminMail('nobody@example.com', 'verify', 'en')).json().detail).toBe('No account has this address.');
    const user = await app.signUp('not-admin@example.com');
    const res = await app.request({ method: 'POST', url: '/admin/accounts/mail', token: user.token, payload: { email: 'field@example.com', action: 'verify' } });
    expect(res.statusCode).toBe(403);
    expect((await adminMail('field@example.com', 'delete')).statusCode).toBe(400);
  });
});
