import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, TestClock, type TestApp } from './helpers/app.js';
import { startReceiver, type TestReceiver } from './helpers/notify.js';

/**
 * Notifications driven by events as the job and quota services store them (the relay puts them on
 * the embedded bus), with a clock the test moves: the outbox without SMTP, preferences, webhook
 * retries over 24 h and a webhook disabled after 3 days of failures. And the SSRF refusal when
 * private hosts are not allowed.
 */
type Json = Record<string, unknown>;

describe('notifications without SMTP, on a moved clock', () => {
  let app: TestApp;
  let receiver: TestReceiver;
  const clock = new TestClock(new Date('2026-05-04T08:00:00.000Z'));

  beforeAll(async () => {
    receiver = await startReceiver([500]);
    app = await startTestApp({ NOTIFY_ALLOW_PRIVATE_HOSTS: 'true', BARET_ADMIN_EMAILS: 'admin@baret.test' }, { clock });
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  const jobEnd = async (userId: string, type: 'job_completed' | 'job_failed', data: Json) => {
    const jobId = randomUUID();
    await app.infra.eventStore.appendToStream(`job-${jobId}`, [{ type, data: { job_id: jobId, user_id: userId, input_filename: 'hat.mp4', at: clock.now().toISOString(), ...data } }]);
    return jobId;
  };

  it('keeps mail in the outbox an admin reads, follows the preferences, and tells about a failed analysis and a low quota', async () => {
    const admin = await app.signUp('admin@baret.test');
    const user = await app.signUp('crew@example.com');
    const failed = await jobEnd(user.id, 'job_failed', { error: 'The video could not be read.', refund: true });
    const items = await eventually(async () => {
      const list = (await app.request({ method: 'GET', url: '/notifications', token: user.token })).json() as { items: Json[] };
      return list.items.length === 1 ? list.items : undefined;
    });
    expect(items[0]).toMatchObject({ kind: 'analysis_failed', job_id: failed, title: 'Analysis failed' });
    const outbox = ((await app.request({ method: 'GET', url: '/admin/outbox', token: admin.token })).json() as Json[]).filter((m) => m.kind !== 'email_verification');
    expect(outbox).toEqual([expect.objectContaining({ kind: 'analysis_failed', to: 'crew@example.com', subject: '[Baret] Analysis failed', channel: 'log' })]);
    expect((await app.request({ method: 'GET', url: '/admin/outbox', token: user.token })).statusCode).toBe(403);

    // Quota: in-app and push by default, no e-mail.
    clock.advance(60_000);
    await app.infra.eventStore.appendToStream(`quota-${user.id}`, [
      { type: 'quota_threshold_reached', data: { user_id: user.id, job_id: randomUUID(), window: 'lifetime', level: 'exhausted', used: 2, limit: 2, at: clock.now().toISOString() } },
    ]);
    const quota = await eventually(async () => {
      const list = (await app.request({ method: 'GET', url: '/notifications', token: user.token, headers: { 'accept-language': 'tr' } })).json() as { items: Json[]; unread: number };
      return list.items.length === 2 ? list : undefined;
    });
    expect(quota.unread).toBe(2);
    expect(quota.items[0]).toMatchObject({ kind: 'quota', title: 'Kullanım limitiniz doldu', url: '/dashboard/profile' });
    expect(quota.items[0]!.body).toContain('2/2');

    // Turn report e-mails and in-app off: a finished job then leaves only what is still on.
    const put = await app.request({ method: 'PUT', url: '/notifications/preferences', token: user.token, payload: { preferences: { report_ready: { email: false, in_app: false } }, language: 'tr' } });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ language: 'tr', preferences: { report_ready: { email: false, push: true, in_app: false }, quota: { email: false } } });
    expect((await app.request({ method: 'PUT', url: '/notifications/preferences', token: user.token, payload: { preferences: { report_ready: { sms: true } } } })).statusCode).toBe(400);
    clock.advance(60_000);
    await jobEnd(user.id, 'job_completed', { violation_count: 2, result: {} });
    clock.advance(60_000);
    // A later failure (still on) proves the completed job was handled before it, in order.
    await jobEnd(user.id, 'job_failed', { error: 'x', refund: true });
    await eventually(async () => ((await app.request({ method: 'GET', url: '/notifications', token: user.token })).json() as { items: Json[] }).items.length === 3 || undefined);
    const mails = ((await app.request({ method: 'GET', url: '/admin/outbox', token: admin.token })).json() as Json[]).filter((m) => m.kind !== 'email_verification');
    expect(mails.map((m) => m.kind).sort()).toEqual(['analysis_failed', 'analysis_failed']);
    // The language chosen is the mails' language from then on.
    expect(mails.map((m) => m.subject)).toContain('[Baret] Analiz başarısız');
  });

  it('retries a failing webhook for 24 hours, then fails the delivery; after 3 days of failures the webhook is disabled and its owner told', async () => {
    const user = await app.signUp('integrator@example.com');
    const start = clock.now().toISOString();
    const hook = (await app.request({ method: 'POST', url: '/webhooks', token: user.token, payload: { url: receiver.url, events: ['job.completed'] } })).json() as { id: string };
    const deliveries = async () => (await app.request({ method: 'GET', url: `/webhooks/${hook.id}/deliveries`, token: user.token })).json() as Json[];
    await jobEnd(user.id, 'job_completed', { violation_count: 0, result: {} });
    const first = await eventually(async () => ((await deliveries())[0]?.attempts === 1 ? (await deliveries())[0] : undefined));
    expect(first).toMatchObject({ status: 'pending', last_status_code: 500 });
    // The first retry is due within a minute.
    expect(Date.parse(String(first.next_attempt_at)) - clock.now().getTime()).toBeLessThanOrEqual(60_000);

    clock.advance(25 * 3600_000);
    await eventually(async () => ((await deliveries())[0]?.status === 'failed' ? true : undefined));
    expect((await deliveries())[0]).toMatchObject({ attempts: 2, status: 'failed' });
    expect(((await app.request({ method: 'GET', url: '/webhooks', token: user.token })).json() as Json[])[0]).toMatchObject({ disabled_at: null, failing_since: start });

    await jobEnd(user.id, 'job_completed', { violation_count: 1, result: {} });
    await eventually(async () => ((await deliveries()).length === 2 && (await deliveries())[0]?.attempts === 1 ? true : undefined));
    clock.advance(48 * 3600_000); // 73 h after the first failure
    await eventually(async () => (((await app.request({ method: 'GET', url: '/webhooks', token: user.token })).json() as Json[])[0]?.disabled_at ? true : undefined));
    expect((await deliveries()).map((d) => d.status)).toEqual(['failed', 'failed']);
    const told = await eventually(async () =>
      ((await app.request({ method: 'GET', url: '/notifications', token: user.token })).json() as { items: Json[] }).items.find((i) => i.kind === 'webhook_disabled'),
    );
    expect(told).toMatchObject({ title: 'Webhook disabled' });
    expect(String(told.body)).toContain(receiver.url);
    const attempts = receiver.requests.length;
    const third = await jobEnd(user.id, 'job_completed', { violation_count: 0, result: {} });
    clock.advance(3600_000);
    const [event] = await app.infra.eventStore.readStream(`job-${third}`);
    await eventually(async () => (await app.notification.cols.handled.get(event!.id)) ?? undefined);
    expect(await deliveries()).toHaveLength(2);
    expect(receiver.requests.length).toBe(attempts);
  });

  it('lets only the owner see and delete a webhook', async () => {
    const a = await app.signUp('owner@example.com');
    const b = await app.signUp('other@example.com');
    const hook = (await app.request({ method: 'POST', url: '/webhooks', token: a.token, payload: { url: receiver.url, events: ['quota.low'] } })).json() as { id: string };
    expect((await app.request({ method: 'GET', url: `/webhooks/${hook.id}/deliveries`, token: b.token })).statusCode).toBe(404);
    expect((await app.request({ method: 'DELETE', url: `/webhooks/${hook.id}`, token: b.token })).statusCode).toBe(404);
    expect((await app.request({ method: 'GET', url: '/webhooks', token: b.token })).json()).toEqual([]);
    expect((await app.request({ method: 'DELETE', url: `/webhooks/${hook.id}`, token: a.token })).statusCode).toBe(204);
    expect((await app.request({ method: 'GET', url: '/webhooks', token: a.token })).json()).toEqual([]);
    expect((await app.request({ method: 'POST', url: '/webhooks', payload: { url: receiver.url, events: ['quota.low'] } })).statusCode).toBe(401);
    expect((await app.request({ method: 'POST', url: '/webhooks', token: a.token, payload: { url: receiver.url, events: ['job.exploded'] } })).statusCode).toBe(400);
  });

  it("does not move a registered push endpoint to another user: 409, and the owner's subscription stays as it was", async () => {
    const owner = await app.signUp('phone-owner@example.com');
    const other = await app.signUp('endpoint-thief@example.com');
    const endpoint = `${receiver.url}/push/device-of-owner`;
    const register = (token: string, p256dh: string) => app.request({ method: 'POST', url: '/push/subscriptions', token, payload: { endpoint, keys: { p256dh, auth: 'auth-secret' } } });
    expect((await register(owner.token, 'owner-key')).statusCode).toBe(201);
    const subscriptions = () => app.notification.cols.pushSubscriptions.find({ where: { endpoint } });

    const taken = await register(other.token, 'thief-key');
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ status: 409, code: 'push_endpoint_taken' });
    expect(await subscriptions()).toEqual([expect.objectContaining({ user_id: owner.id, p256dh: 'owner-key' })]);
    // Nor can the other user remove it.
    expect((await app.request({ method: 'DELETE', url: '/push/subscriptions', token: other.token, payload: { endpoint } })).statusCode).toBe(204);
    expect(await subscriptions()).toHaveLength(1);

    // The owner registering again (the browser's keys changed) is fine.
    expect((await register(owner.token, 'owner-key-2')).statusCode).toBe(201);
    expect(await subscriptions()).toEqual([expect.objectContaining({ user_id: owner.id, p256dh: 'owner-key-2' })]);
  });
});

describe('SSRF: without NOTIFY_ALLOW_PRIVATE_HOSTS', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({}, { background: false });
  });
  afterAll(() => app.close());

  it('refuses webhook and push targets on private, loopback and link-local addresses', async () => {
    const user = await app.signUp('attacker@example.com');
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://[::1]/x', 'http://169.254.169.254/latest/meta-data', 'http://10.0.0.5/', 'http://192.168.1.1/', 'http://[::ffff:7f00:1]/',
      // IPv6 literals that carry 127.0.0.1 or 169.254.169.254: IPv4-compatible, SIIT, NAT64 (RFC 8215), 6to4
      'http://[::127.0.0.1]/', 'http://[::ffff:0:169.254.169.254]/', 'http://[64:ff9b:1::7f00:1]/', 'http://[2002:a9fe:a9fe::]/']) {
      const res = await app.request({ method: 'POST', url: '/webhooks', token: user.token, payload: { url, events: ['job.completed'] } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toMatchObject({ detail: 'Private, loopback and link-local addresses are not allowed.' });
    }
    expect((await app.request({ method: 'POST', url: '/webhooks', token: user.token, payload: { url: 'ftp://example.com/x', events: ['job.completed'] } })).statusCode).toBe(400);
    const push = await app.request({ method: 'POST', url: '/push/subscriptions', token: user.token, payload: { endpoint: 'http://127.0.0.1:9/push', keys: { p256dh: 'x', auth: 'y' } } });
    expect(push.statusCode).toBe(400);
    const embedded = await app.request({ method: 'POST', url: '/push/subscriptions', token: user.token, payload: { endpoint: 'http://[2002:7f00:1::]/push', keys: { p256dh: 'x', auth: 'y' } } });
    expect(embedded.statusCode).toBe(400);
    expect((await app.request({ method: 'GET', url: '/webhooks', token: user.token })).json()).toEqual([]);
  });
});
