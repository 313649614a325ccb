/**
 * Organisations meet notifications (issues 28 and 29) on the embedded bus with a real SMTP server:
 * an invitation is mailed to the invited address once, in the invitee's language when Baret knows
 * it (else the inviter's); the organisation's managers are told of their members' jobs and of the
 * organisation's quota, each by their own preferences, once per person.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEnvelope } from '@baret/platform';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { eventually, startTestApp, type TestApp } from './helpers/app.js';
import { submitVideo, waitForJob } from './helpers/jobs.js';
import { decodeHeader, parseMail, startSmtp, type TestSmtp } from './helpers/notify.js';

let smtp: TestSmtp;
let app: TestApp;
let fx: Awaited<ReturnType<typeof videoFixtures>>;
let video: string;

beforeAll(async () => {
  fx = await videoFixtures();
  video = (await fx.photos('ppe.mp4', 4)).path;
  smtp = await startSmtp();
  app = await startTestApp(
    { SMTP_URL: smtp.url, SMTP_FROM: 'Baret <noreply@baret.test>', PUBLIC_URL: 'https://baret.example', BARET_ADMIN_EMAILS: 'admin@baret.test' },
    { realClock: true },
  );
}, 60_000);
afterAll(async () => {
  await app?.close();
  await smtp?.close();
  await fx?.dispose();
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

describe("the organisation's managers are told too", () => {
  it('of their members’ jobs and of the organisation’s quota: by each one’s preferences, once per person (a manager who owns the job gets one)', async () => {
    // The admin signed up in the test above.
    const adminToken = (await app.request({ method: 'POST', url: '/auth/login', payload: { email: 'admin@baret.test', password: 'correct horse battery' } })).json() as { access_token: string };
    const mina = await register('mina@example.com', 'en', 'Mina');
    const kemal = await register('kemal@example.com', 'en', 'Kemal');
    const alice = await register('alice@example.com', 'en', 'Alice');
    const org = (await app.request({ method: 'POST', url: '/orgs', token: mina.token, payload: { name: 'Hat Bakım A.Ş.' } })).json() as { id: string };
    for (const [who, role] of [[kemal, 'manager'], [alice, 'member']] as const) {
      const { token } = (await app.request({ method: 'POST', url: `/orgs/${org.id}/invites`, token: mina.token, payload: { email: who.email, role } })).json() as { token: string };
      expect((await app.request({ method: 'POST', url: `/invites/${token}/accept`, token: who.token })).statusCode).toBe(200);
    }
    // Kemal wants no report mails, but quota mails (off by default).
    const prefs = await app.request({ method: 'PUT', url: '/notifications/preferences', token: kemal.token, payload: { preferences: { report_ready: { email: false }, quota: { email: true } } } });
    expect(prefs.statusCode, prefs.body).toBe(200);
    // The organisation may run two analyses: the second uses it up.
    const limits = await app.request({ method: 'PATCH', url: `/admin/orgs/${org.id}/quota`, token: adminToken.access_token, payload: { lifetime_limit: 2 } });
    expect(limits.statusCode, limits.body).toBe(200);
    // The notification service knows the managers once the memberships reached it.
    await eventually(async () => ((await app.notification.cols.orgMembers.count({ org_id: org.id })) === 3 ? true : undefined), 20_000);

    const reportsTo = (email: string, jobId: string) => mailsTo(email, /^\[Baret\] Report ready$/).filter((m) => (parseMail(m.raw).text ?? '').includes(`/dashboard/jobs/${jobId}`));
    const inApp = async (token: string) => ((await app.request({ method: 'GET', url: '/notifications', token })).json() as { items: Array<{ kind: string; job_id: string | null; title: string; url: string }> }).items;

    // A member's job: the member and Mina are mailed; Kemal (report mails off) sees it in the app.
    const a = (await submitVideo(app, alice.token, video, { job_type: 'auto' }, 'alice.mp4')).json() as { job_id: string };
    expect((await waitForJob(app, alice.token, a.job_id)).status).toBe('done');
    await eventually(async () => (reportsTo('alice@example.com', a.job_id).length === 1 && reportsTo('mina@example.com', a.job_id).length === 1 ? true : undefined), 20_000);
    await eventually(async () => ((await inApp(kemal.token)).some((i) => i.job_id === a.job_id) ? true : undefined), 20_000);
    expect(parseMail(reportsTo('mina@example.com', a.job_id)[0]!.raw).text).toContain('alice.mp4');

    // Mina's own job, which uses the organisation's quota up: Mina, owner and manager, gets one report mail.
    const m = (await submitVideo(app, mina.token, video, { job_type: 'auto' }, 'mina.mp4')).json() as { job_id: string };
    expect((await waitForJob(app, mina.token, m.job_id)).status).toBe('done');
    await eventually(async () => ((await inApp(kemal.token)).filter((i) => i.kind === 'report_ready').length === 2 ? true : undefined), 20_000);
    await eventually(async () => ((await inApp(kemal.token)).some((i) => i.kind === 'quota') ? true : undefined), 20_000);
    const quotaMail = await eventually(async () => mailsTo('kemal@example.com', /usage limit is reached/)[0], 20_000);
    expect(parseMail(quotaMail.raw).text).toContain('Your organisation has used all of its lifetime limit (2/2)');
    await groupDone('notification-events');

    expect(reportsTo('mina@example.com', m.job_id)).toHaveLength(1);
    expect(reportsTo('alice@example.com', m.job_id)).toHaveLength(0);
    expect(mailsTo('kemal@example.com', /Report ready/)).toHaveLength(0);
    // Quota: Kemal by mail and in the app; Mina in the app only (quota mails are off by default); Alice, a member, not at all.
    expect(mailsTo('mina@example.com', /usage limit/)).toHaveLength(0);
    expect(mailsTo('alice@example.com', /usage limit/)).toHaveLength(0);
    const minaItems = await inApp(mina.token);
    expect(minaItems.filter((i) => i.kind === 'quota')).toEqual([expect.objectContaining({ title: 'Your organisation’s usage limit is reached', url: '/dashboard/organisation' })]);
    expect(minaItems.filter((i) => i.kind === 'report_ready').map((i) => i.job_id).sort()).toEqual([a.job_id, m.job_id].sort());
    const aliceItems = await inApp(alice.token);
    expect(aliceItems.map((i) => [i.kind, i.job_id])).toEqual([['report_ready', a.job_id]]);
    expect((await inApp(kemal.token)).filter((i) => i.kind === 'quota')).toHaveLength(1);

    // The member's job_completed again on the bus: nobody is told twice.
    const completed = (await app.infra.eventStore.readStream(`job-${a.job_id}`)).find((e) => e.type === 'job_completed')!;
    expect((completed.data as { org_id?: string }).org_id).toBe(org.id);
    await app.infra.bus.publish('job-events', [{ key: `job-${a.job_id}`, value: encodeEnvelope(completed) }]);
    await groupDone('notification-events');
    expect(reportsTo('alice@example.com', a.job_id)).toHaveLength(1);
    expect(reportsTo('mina@example.com', a.job_id)).toHaveLength(1);
    expect((await inApp(kemal.token)).filter((i) => i.job_id === a.job_id)).toHaveLength(1);
  }, 180_000);
});
