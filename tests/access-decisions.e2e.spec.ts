/**
 * Issue 37, point 5 and the four product decisions, through HTTP on the embedded run:
 * - an API key cannot create, list or delete API keys (managing credentials needs a login);
 * - a member removed from an organisation no longer reads its jobs, their own included; their
 *   export lists those jobs' ids and dates, without images;
 * - an address of BARET_ADMIN_EMAILS becomes admin only once it is verified;
 * - the admin outbox shows that a reset or invitation mail was sent, never its live link;
 * - a member of an organisation on Pro gets the PDF report without a personal Pro plan.
 */
import { readFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { eventually, startTestApp, type TestApp } from './helpers/app.js';
import { submitVideo } from './helpers/jobs.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let clip: Buffer;
let app: TestApp;
let admin: { token: string; id: string };

beforeAll(async () => {
  fx = await videoFixtures();
  clip = readFileSync(await fx.testsrc('clip.mp4', { seconds: 2 }));
  // The notification consumers run (the outbox is filled); the analysis of the queued jobs is not waited for.
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test,boss@example.com', PUBLIC_URL: 'https://baret.example' });
  admin = await app.signUp('admin@baret.test');
}, 60_000);
afterAll(async () => {
  await app?.close();
  await fx?.dispose();
});

let n = 0;
const person = async (name: string) => {
  const email = `${name}${++n}@example.com`;
  return { ...(await app.signUp(email)), email };
};
const send = (method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, token?: string, payload?: Record<string, unknown>) => app.request({ method, url, token, payload });
const params = { job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 };

async function orgWith(manager: { token: string }, member: { token: string; email: string }) {
  const org = (await send('POST', '/orgs', manager.token, { name: `Karadeniz Elektrik ${n}` })).json() as { id: string };
  const invite = (await send('POST', `/orgs/${org.id}/invites`, manager.token, { email: member.email, role: 'member' })).json() as { token: string };
  expect((await send('POST', `/invites/${invite.token}/accept`, member.token)).statusCode).toBe(200);
  return org.id;
}

describe('API keys are for the API: managing them needs a login (issue 37, point 5)', () => {
  it('refuses to create, list or delete API keys with an API key (403 login_required), in both languages', async () => {
    const crew = await person('crew');
    const created = await send('POST', '/auth/tokens', crew.token, { name: 'truck 7' });
    expect(created.statusCode).toBe(201);
    const key = created.json() as { id: string; token: string };

    const minted = await send('POST', '/auth/tokens', key.token, { name: 'outlives its maker' });
    expect(minted.statusCode).toBe(403);
    expect(minted.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(minted.json()).toMatchObject({ status: 403, code: 'login_required', detail: 'API keys cannot manage API keys. Please log in to create, list or delete them.' });
    const tr = await app.request({ method: 'POST', url: '/auth/tokens', token: key.token, payload: { name: 'x' }, headers: { 'accept-language': 'tr' } });
    expect(tr.json()).toMatchObject({ code: 'login_required', detail: 'API anahtarları API anahtarlarını yönetemez. Oluşturmak, listelemek veya silmek için lütfen giriş yapın.' });
    expect((await send('GET', '/auth/tokens', key.token)).statusCode).toBe(403);
    expect((await send('DELETE', `/auth/tokens/${key.id}`, key.token)).statusCode).toBe(403);

    // Nothing was made or removed; the key still works for the API, and the login manages keys.
    const listed = await send('GET', '/auth/tokens', crew.token);
    expect((listed.json() as Array<{ id: string }>).map((k) => k.id)).toEqual([key.id]);
    expect((await send('GET', '/jobs', key.token)).statusCode).toBe(200);
    expect((await send('DELETE', `/auth/tokens/${key.id}`, crew.token)).statusCode).toBe(204);
  });
});

describe('a member removed from an organisation (issue 37)', () => {
  it('no longer reads its jobs, their own included; the organisation keeps them; their export lists ids and dates without images', async () => {
    const manager = await person('manager');
    const member = await person('member');
    const orgId = await orgWith(manager, member);
    const orgJob = (await submitVideo(app, member.token, clip, params, 'ekip.mp4')).json() as { job_id: string };
    expect((await send('GET', `/jobs/${orgJob.job_id}`, member.token)).statusCode).toBe(200);

    expect((await send('DELETE', `/orgs/${orgId}/members/${member.id}`, manager.token)).statusCode).toBe(204);
    // A job of their own afterwards is theirs as ever.
    const personalJob = (await submitVideo(app, member.token, clip, params, 'kendi.mp4')).json() as { job_id: string };

    for (const path of ['', '/result.json', '/report.pdf', '/evidence/0']) {
      expect((await send('GET', `/jobs/${orgJob.job_id}${path}`, member.token)).statusCode, path).toBe(404);
    }
    const listed = (await send('GET', '/jobs', member.token)).json() as Array<{ job_id: string }>;
    expect(listed.map((j) => j.job_id)).toEqual([personalJob.job_id]);
    // The organisation keeps it.
    expect((await send('GET', `/jobs/${orgJob.job_id}`, manager.token)).statusCode).toBe(200);
    expect(((await send('GET', '/jobs?scope=org', manager.token)).json() as Array<{ job_id: string }>).map((j) => j.job_id)).toContain(orgJob.job_id);

    const exported = await send('GET', '/me/export', member.token);
    expect(exported.statusCode).toBe(200);
    const files = unzipSync(new Uint8Array(exported.rawPayload));
    const jobs = JSON.parse(new TextDecoder().decode(files['jobs.json'])) as Array<Record<string, unknown>>;
    const kept = jobs.find((j) => j.job_id === orgJob.job_id);
    expect(Object.keys(kept ?? {}).sort()).toEqual(['completed_at', 'created_at', 'job_id', 'kept_by_organisation']);
    expect(kept).toMatchObject({ job_id: orgJob.job_id, created_at: expect.any(String), kept_by_organisation: true });
    expect(jobs.find((j) => j.job_id === personalJob.job_id)).toMatchObject({ input_filename: 'kendi.mp4' });
    expect(Object.keys(files).filter((f) => f.startsWith(`jobs/${orgJob.job_id}/`))).toEqual([]);
    expect(Object.keys(files)).toContain(`jobs/${personalJob.job_id}/job.json`);
  }, 60_000);
});

describe('the first admin by e-mail (issue 37)', () => {
  it('becomes admin only once the address is verified by the link mailed at registration', async () => {
    const reg = await app.request({ method: 'POST', url: '/auth/register', remoteAddress: '127.9.0.1', payload: { email: 'Boss@example.com', password: 'correct horse battery' } });
    expect(reg.statusCode).toBe(201);
    const id = (reg.json() as { id: string }).id;
    const token = ((await app.request({ method: 'POST', url: '/auth/login', remoteAddress: '127.9.0.1', payload: { email: 'boss@example.com', password: 'correct horse battery' } })).json() as { access_token: string }).access_token;
    // Whoever registered the address first is not an admin on that alone.
    expect((await send('GET', '/auth/me', token)).json()).toMatchObject({ is_admin: false, email_verified: false });
    expect((await send('GET', '/admin/users/quotas', token)).statusCode).toBe(403);

    await app.confirmEmail(id);
    expect((await send('GET', '/auth/me', token)).json()).toMatchObject({ is_admin: true, email_verified: true });
    expect((await send('GET', '/admin/users/quotas', token)).statusCode).toBe(200);
  });
});

describe('the admin outbox (issue 37)', () => {
  it('shows that a reset, confirmation or invitation mail was sent, never its live link or token', async () => {
    const manager = await person('outbox-manager');
    const invitee = 'outbox-invitee@example.com';
    const org = (await send('POST', '/orgs', manager.token, { name: 'Outbox Elektrik' })).json() as { id: string };
    const invite = (await send('POST', `/orgs/${org.id}/invites`, manager.token, { email: invitee, role: 'member' })).json() as { token: string };
    expect((await send('POST', '/auth/password-reset', undefined, { email: manager.email })).statusCode).toBe(202);

    type Mail = { kind: string; to: string; text: string };
    const mails = await eventually(async () => {
      const all = (await send('GET', '/admin/outbox?limit=200', admin.token)).json() as Mail[];
      const mine = all.filter((m) => m.to === manager.email || m.to === invitee);
      return ['password_reset', 'email_verification', 'org_invite'].every((k) => mine.some((m) => m.kind === k)) ? mine : undefined;
    }, 15_000);
    // The stored mail has the live links (the person got them) …
    const stored = await app.notification.outbox.find({ where: { to: manager.email, kind: 'password_reset' } });
    const resetToken = /reset-password\?token=(\S+)/.exec(stored[0]!.text)?.[1];
    expect(resetToken?.length).toBeGreaterThan(20);
    // … the admin sees that they were sent, not the links.
    for (const mail of mails) {
      expect(mail.text, mail.kind).not.toContain(decodeURIComponent(resetToken!));
      expect(mail.text, mail.kind).not.toContain(invite.token);
      expect(mail.text, mail.kind).not.toMatch(/token=(?!\[hidden\])/);
    }
    expect(mails.find((m) => m.kind === 'password_reset')!.text).toContain('https://baret.example/reset-password?token=[hidden]');
    expect(mails.find((m) => m.kind === 'org_invite')!.text).toContain('https://baret.example/invite/[hidden]');
    // The hidden links are dead ends; the real ones still work for their owner.
    expect((await send('POST', '/auth/password-reset/confirm', undefined, { token: '[hidden]', password: 'a new password 1' })).statusCode).toBe(400);
    expect((await send('POST', '/auth/password-reset/confirm', undefined, { token: decodeURIComponent(resetToken!), password: 'a new password 1' })).statusCode).toBe(204);
  }, 30_000);
});

describe('plan features come from the organisation (issue 37)', () => {
  it("gives a member of an organisation on Pro the PDF report without a personal Pro plan; not a member of a free one's", async () => {
    const manager = await person('pro-manager');
    const member = await person('pro-member');
    const orgId = await orgWith(manager, member);
    expect((await send('PATCH', `/admin/orgs/${orgId}/quota`, admin.token, { plan_name: 'pro', lifetime_limit: null })).statusCode).toBe(200);
    const job = (await submitVideo(app, member.token, clip, params, 'pro.mp4')).json() as { job_id: string };
    expect(((await send('GET', '/auth/me', member.token)).json() as { quota: { plan_name: string } }).quota.plan_name).toBe('pro');

    const pdf = await send('GET', `/jobs/${job.job_id}/report.pdf`, member.token);
    expect(pdf.statusCode, pdf.body.slice(0, 300)).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect((await send('GET', `/jobs/${job.job_id}/report.pdf`, manager.token)).statusCode).toBe(200);

    // Someone on the free plan (no organisation): still refused.
    const solo = await person('free-solo');
    const soloJob = (await submitVideo(app, solo.token, clip, params, 'free.mp4')).json() as { job_id: string };
    expect((await send('GET', `/jobs/${soloJob.job_id}/report.pdf`, solo.token)).json()).toMatchObject({ status: 403 });
  }, 60_000);
});
