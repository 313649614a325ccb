import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { eventually } from './helpers/app.js';
import { parseMail, decodeHeader, pushKeys, startReceiver, startSmtp, type TestReceiver, type TestSmtp } from './helpers/notify.js';
import { api, startBaret, type RunningBaret } from './helpers/process.js';

/**
 * Issue 29's acceptance: the notification service is killed (SIGKILL) between receiving a job's
 * event and acknowledging it — while its report mail is on the wire and the SMTP server has not
 * answered — and started again. The event comes again (the SMTP server sees the mail a second
 * time), yet the person gets exactly one e-mail and the webhook exactly one Baret-Delivery id.
 * The restarted process is another owner of the dead one's claims: it takes them over when their
 * lease ends (NOTIFY_CLAIM_LEASE_MS, short here).
 */
let fx: Awaited<ReturnType<typeof videoFixtures>>;
let smtp: TestSmtp;
let hooks: TestReceiver;
const dir = mkdtempSync(join(tmpdir(), 'baret-notify-crash-'));

beforeAll(async () => {
  fx = await videoFixtures();
  smtp = await startSmtp();
  hooks = await startReceiver();
}, 60_000);
afterAll(async () => {
  await Promise.all([smtp.close(), hooks.close()]);
  await fx.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('the notification service killed between receiving an event and acknowledging it', () => {
  it('still sends one e-mail and one webhook delivery id after the restart', async () => {
    const env = { BARET_DATA_DIR: dir, WEB_DIST_DIR: dir, SMTP_URL: smtp.url, NOTIFY_ALLOW_PRIVATE_HOSTS: 'true', PUBLIC_URL: 'https://baret.example', NOTIFY_CLAIM_LEASE_MS: '2000' };
    let baret: RunningBaret = await startBaret(env);
    try {
      const email = 'night-shift@example.com';
      await api(baret.url, '/auth/register', { method: 'POST', body: JSON.stringify({ email, password: 'password 123' }), headers: { 'accept-language': 'en' } });
      const login = await api<{ access_token: string }>(baret.url, '/auth/login', { method: 'POST', body: JSON.stringify({ email, password: 'password 123' }) });
      const token = login.body.access_token;
      await eventually(async () => smtp.accepted.find((m) => m.to.includes(email)), 20_000); // the confirmation link
      const hook = await api<{ id: string }>(baret.url, '/webhooks', { method: 'POST', token, body: JSON.stringify({ url: hooks.url, events: ['job.completed'] }) });
      expect(hook.status).toBe(201);

      // The next mail (the report) is received but never answered; then the process dies.
      const held = smtp.holdNext();
      const form = new FormData();
      form.append('payload', JSON.stringify({ job_type: 'auto', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 }));
      form.append('file', new Blob([readFileSync((await fx.photos('ppe.mp4', 4)).path)], { type: 'video/mp4' }), 'pole.mp4');
      const submitted = await fetch(`${baret.url}/analyze`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
      expect(submitted.status).toBe(202);
      const { job_id } = (await submitted.json()) as { job_id: string };
      await held;
      baret.child.kill('SIGKILL');
      await baret.exited;
      const reports = (list: typeof smtp.received) => list.filter((m) => m.to.includes(email) && decodeHeader(parseMail(m.raw).headers.subject ?? '').includes('Report ready'));
      expect(reports(smtp.received)).toHaveLength(1);
      expect(reports(smtp.accepted)).toHaveLength(0);

      baret = await startBaret(env);
      await eventually(async () => (reports(smtp.accepted).length > 0 ? true : undefined), 30_000);
      // delivered in full: the webhook too, and the in-app notification
      const deliveries = await eventually(async () => {
        const { body } = await api<Array<{ id: string; status: string }>>(baret.url, `/webhooks/${hook.body.id}/deliveries`, { token });
        return body[0]?.status === 'delivered' ? body : undefined;
      }, 30_000);
      const inApp = await api<{ items: Array<{ job_id: string }> }>(baret.url, '/notifications', { token });
      expect(inApp.body.items.filter((i) => i.job_id === job_id)).toHaveLength(1);

      // The event was handled again after the restart (the SMTP server saw the mail a second time) …
      expect(reports(smtp.received)).toHaveLength(2);
      // … and still: one e-mail delivered, one webhook delivery id.
      expect(reports(smtp.accepted)).toHaveLength(1);
      expect(deliveries).toHaveLength(1);
      expect(hooks.requests.length).toBeGreaterThanOrEqual(1);
      expect(new Set(hooks.requests.map((r) => r.headers['baret-delivery']))).toEqual(new Set([deliveries[0]!.id]));
    } finally {
      baret.child.kill('SIGTERM');
      await baret.exited;
    }
  }, 180_000);

  it('after the mail was accepted and while the push is on the wire: still one e-mail and one delivery id', async () => {
    const data = mkdtempSync(join(dir, 'push-'));
    const pushService = await startReceiver([0, 201]); // the first push is never answered
    const env = { BARET_DATA_DIR: data, WEB_DIST_DIR: data, SMTP_URL: smtp.url, NOTIFY_ALLOW_PRIVATE_HOSTS: 'true', PUBLIC_URL: 'https://baret.example', NOTIFY_CLAIM_LEASE_MS: '2000' };
    let baret: RunningBaret = await startBaret(env);
    try {
      const email = 'day-shift@example.com';
      await api(baret.url, '/auth/register', { method: 'POST', body: JSON.stringify({ email, password: 'password 123' }), headers: { 'accept-language': 'en' } });
      const token = (await api<{ access_token: string }>(baret.url, '/auth/login', { method: 'POST', body: JSON.stringify({ email, password: 'password 123' }) })).body.access_token;
      const hook = await api<{ id: string }>(baret.url, '/webhooks', { method: 'POST', token, body: JSON.stringify({ url: `${hooks.url}/day`, events: ['job.completed'] }) });
      const keys = pushKeys();
      expect((await api(baret.url, '/push/subscriptions', { method: 'POST', token, body: JSON.stringify({ endpoint: `${pushService.url}/p`, keys: { p256dh: keys.p256dh, auth: keys.auth } }) })).status).toBe(201);
      const onWire = new Promise<void>((resolve) => (pushService.onRequest = () => resolve()));

      const form = new FormData();
      form.append('payload', JSON.stringify({ job_type: 'auto', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 }));
      form.append('file', new Blob([readFileSync((await fx.photos('ppe.mp4', 4)).path)], { type: 'video/mp4' }), 'pole.mp4');
      const submitted = await fetch(`${baret.url}/analyze`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
      expect(submitted.status).toBe(202);
      await onWire;
      baret.child.kill('SIGKILL');
      await baret.exited;
      const reports = () => smtp.accepted.filter((m) => m.to.includes(email) && decodeHeader(parseMail(m.raw).headers.subject ?? '').includes('Report ready'));
      expect(reports()).toHaveLength(1);

      baret = await startBaret(env);
      // The event is handled again: the push goes out again (it was never answered) …
      await eventually(async () => (pushService.requests.length === 2 ? true : undefined), 30_000);
      const deliveries = await eventually(async () => {
        const { body } = await api<Array<{ id: string; status: string }>>(baret.url, `/webhooks/${hook.body.id}/deliveries`, { token });
        return body[0]?.status === 'delivered' ? body : undefined;
      }, 30_000);
      // … but the mail, accepted before the kill, is not sent again, and the webhook keeps its one id.
      expect(reports()).toHaveLength(1);
      expect(deliveries).toHaveLength(1);
      const day = hooks.requests.filter((r) => r.url === '/day');
      expect(new Set(day.map((r) => r.headers['baret-delivery']))).toEqual(new Set([deliveries[0]!.id]));
    } finally {
      baret.child.kill('SIGTERM');
      await baret.exited;
      await pushService.close();
    }
  }, 180_000);
});
