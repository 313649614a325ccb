/**
 * Organisations meet notifications (issues 28 and 29) on the embedded bus with a real SMTP server:
 * an invitation is mailed to the invited address once, in the invitee's language when Baret knows
 * it (else the inviter's); the organisation's managers are told of their members' jobs and of the
 * organisation's quota, each by their own preferences, once per person.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEnvelope } from '@baret/platform';
import { eventually, startTestApp, type TestApp } from './helpers/app.js';
import { decodeHeader, parseMail, startSmtp, type TestSmtp } from './helpers/notify.js';

let smtp: TestSmtp;
let app: TestApp;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await startTestApp(
    { SMTP_URL: smtp.url, SMTP_FROM: 'Baret <noreply@baret.test>', PUBLIC_URL: 'https://baret.example', BARET_ADMIN_EMAILS: 'admin@baret.test' },
    { realClock: true },
  );
}, 60_000);
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const subjectOf = (m: { raw: string }) => decodeHeader(parseMail(m.raw).headers.subject ?? '');
const mailsTo = (email: string, subject: RegExp) => smtp.accepted.filter((m) => m.to.some((to) => to.toLowerCase() === email.toLowerCase()) && subject.test(subjectOf(m)));
const groupDone = async (group: string) =>
  eventually(async () => ((await app.infra.bus.lag?.())?.filter((l) => l.group === group).every((l) => l.lag === 0) ? true : undefined), 20_000);

async function register(email: string, lang: 'tr' | 'en', fullName: string) {
  const reg = await app.request({ method: 'POST', url: '/auth/register', headers: { 'accept-language': lang }, payload: { email, password: 'correct horse battery', full_name: fullName } });
  expect(reg.statusCode, reg.body).toBe(201);
  const login = await app.request({ method: 'POST', url: '/auth/login', payload: { email, password: 'correct horse battery' } });
  return { id: (reg.json() as { id: string }).id, token: (login.json() as { access_token: string }).access_token, email };
}

describe('invitation e-mails', () => {
  it('mails the link once, in the invitee’s language if known, else the inviter’s; the manager still gets the link to share', async () => {
    const manager = await register('mudur@example.com', 'en', 'Ayşe Yılmaz');
    const org = (await app.request({ method: 'POST', url: '/orgs', token: manager.token, payload: { name: 'Boğaziçi Elektrik' } })).json() as { id: string };
    await register('ali@example.com', 'tr', 'Ali Çelik');
    // Baret knows Ali once the registration has reached the notification service (its confirmation mail says so).
    await eventually(async () => mailsTo('ali@example.com', /E-posta adresinizi doğrulayın/)[0], 20_000);

    // A registered invitee who chose Turkish: the mail is in Turkish, whatever the manager reads.
    const known = await app.request({ method: 'POST', url: `/orgs/${org.id}/invites`, token: manager.token, payload: { email: 'Ali@Example.com', role: 'member' } });
    expect(known.statusCode, known.body).toBe(201);
    const knownInvite = known.json() as { token: string; url: string };
    expect(knownInvite.url).toBe(`/invite/${knownInvite.token}`);
    const tr = await eventually(async () => mailsTo('Ali@Example.com', /davet ediyor/)[0], 20_000);
    const trMail = parseMail(tr.raw);
    expect(subjectOf(tr)).toBe("[Baret] Boğaziçi Elektrik sizi Baret'e davet ediyor");
    expect(trMail.text).toContain('Merhaba Ali Çelik,');
    expect(trMail.text).toContain('Ayşe Yılmaz, sizi Baret\'te Boğaziçi Elektrik organizasyonuna üye olarak davet ediyor');
    expect(trMail.text).toContain(`Daveti kabul et: https://baret.example/invite/${knownInvite.token}`);
    expect(trMail.html).toContain(`href="https://baret.example/invite/${knownInvite.token}"`);
    expect(trMail.html).toContain('<html lang="tr">');

    // An address Baret does not know: the inviter's language (English here).
    const unknown = await app.request({ method: 'POST', url: `/orgs/${org.id}/invites`, token: manager.token, payload: { email: 'new.hire@example.com', role: 'manager' } });
    expect(unknown.statusCode, unknown.body).toBe(201);
    const unknownInvite = unknown.json() as { token: string };
    const en = await eventually(async () => mailsTo('new.hire@example.com', /invites you/)[0], 20_000);
    const enMail = parseMail(en.raw);
    expect(subjectOf(en)).toBe('[Baret] Boğaziçi Elektrik invites you to Baret');
    expect(enMail.text).toMatch(/^Hello,/);
    expect(enMail.text).toContain('Ayşe Yılmaz invites you to join Boğaziçi Elektrik on Baret as a manager.');
    expect(enMail.text).toContain(`Accept the invitation: https://baret.example/invite/${unknownInvite.token}`);
    expect(enMail.html).toContain(`href="https://baret.example/invite/${unknownInvite.token}"`);

    // The link mailed works: the Turkish invitee accepts with it.
    const ali = (await app.request({ method: 'POST', url: '/auth/login', payload: { email: 'ali@example.com', password: 'correct horse battery' } })).json() as { access_token: string };
    const mailedToken = /\/invite\/([A-Za-z0-9_-]+)/.exec(trMail.text ?? '')![1]!;
    expect((await app.request({ method: 'POST', url: `/invites/${mailedToken}/accept`, token: ali.access_token })).statusCode).toBe(200);

    // The mail request delivered again (a redelivery or a replay): no second mail.
    const stream = await app.infra.eventStore.readStream(`org-${org.id}`);
    const requests = stream.filter((e) => e.type === 'org_invite_mail_requested');
    expect(requests).toHaveLength(2);
    await app.infra.bus.publish('org-events', requests.map((e) => ({ key: `org-${org.id}`, value: encodeEnvelope(e) })));
    await groupDone('notification-orgs');
    expect(mailsTo('Ali@Example.com', /davet ediyor/)).toHaveLength(1);
    expect(mailsTo('new.hire@example.com', /invites you/)).toHaveLength(1);

    // The admin's outbox names them.
    const admin = await app.signUp('admin@baret.test');
    const outbox = (await app.request({ method: 'GET', url: '/admin/outbox', token: admin.token })).json() as Array<{ kind: string; to: string; channel: string }>;
    expect(outbox.filter((m) => m.kind === 'org_invite').map((m) => m.to).sort()).toEqual(['Ali@Example.com', 'new.hire@example.com']);
    expect(outbox.filter((m) => m.kind === 'org_invite').every((m) => m.channel === 'smtp')).toBe(true);
  }, 60_000);
});
