import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEnvelope } from '@baret/platform';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { eventually, startTestApp, type TestApp } from './helpers/app.js';
import { submitVideo, waitForJob } from './helpers/jobs.js';
import { decodeHeader, decryptPush, parseMail, pushKeys, startReceiver, startSmtp, verifyBaretSignature, verifyVapid, type TestReceiver, type TestSmtp } from './helpers/notify.js';

/**
 * Issue 29 end to end on the embedded bus: an analysis finishes and its owner gets one e-mail (read
 * back from a real SMTP server), one signed webhook (a local HTTP server), one in-app notification
 * and one Web Push request (a local push endpoint; the body decrypted with the subscription's keys).
 */
let fx: Awaited<ReturnType<typeof videoFixtures>>;
let video: string;
let smtp: TestSmtp;
let hooks: TestReceiver;
let pushService: TestReceiver;
let app: TestApp;

beforeAll(async () => {
  fx = await videoFixtures();
  video = (await fx.photos('ppe.mp4', 6)).path;
  smtp = await startSmtp();
  hooks = await startReceiver();
  pushService = await startReceiver([201]);
  app = await startTestApp(
    { SMTP_URL: smtp.url, SMTP_FROM: 'Baret <noreply@baret.test>', PUBLIC_URL: 'https://baret.example', NOTIFY_ALLOW_PRIVATE_HOSTS: 'true', NOTIFY_WEBHOOK_RETRY_BASE_MS: '50' },
    { realClock: true },
  );
}, 60_000);
afterAll(async () => {
  await app.close();
  await Promise.all([smtp.close(), hooks.close(), pushService.close()]);
  await fx.dispose();
});

type Json = Record<string, unknown>;
const groupDone = async (group: string) => eventually(async () => ((await app.infra.bus.lag?.())?.filter((l) => l.group === group).every((l) => l.lag === 0) ? true : undefined), 20_000);

describe('an analysis finishes: every channel tells its owner once', () => {
  it('e-mail, webhook, in-app and Web Push each arrive once, and a replayed event sends nothing more', async () => {
    const user = await app.signUp('foreman@example.com', 'correct horse battery', 'Ayşe Usta');
    const hook = await app.request({ method: 'POST', url: '/webhooks', token: user.token, payload: { url: `${hooks.url}/baret`, events: ['job.completed', 'job.failed'] } });
    expect(hook.statusCode).toBe(201);
    const { id: webhookId, secret } = hook.json() as { id: string; secret: string };
    expect(secret).toMatch(/^whsec_/);
    expect((await app.request({ method: 'GET', url: '/webhooks', token: user.token })).json()).toEqual([expect.not.objectContaining({ secret: expect.anything() })]);

    const vapid = (await app.request({ method: 'GET', url: '/push/vapid-public-key' })).json() as { key: string };
    expect(Buffer.from(vapid.key, 'base64url')).toHaveLength(65);
    const keys = pushKeys();
    const sub = await app.request({ method: 'POST', url: '/push/subscriptions', token: user.token, payload: { endpoint: `${pushService.url}/push/abc`, expirationTime: null, keys: { p256dh: keys.p256dh, auth: keys.auth } } });
    expect(sub.statusCode).toBe(201);

    const res = await submitVideo(app, user.token, video, { job_type: 'auto' }, 'direk.mp4');
    expect(res.statusCode).toBe(202);
    const { job_id } = res.json() as { job_id: string };
    const job = await waitForJob(app, user.token, job_id);
    expect(job.status).toBe('done');
    const violations = (job.result?.violations as unknown[] | undefined)?.length ?? 0;

    // e-mail, read back from the SMTP server (the first one is the confirmation link of the registration)
    const subjectOf = (m: { raw: string }) => decodeHeader(parseMail(m.raw).headers.subject ?? '');
    const reports = () => smtp.accepted.filter((m) => m.to.includes('foreman@example.com') && subjectOf(m) === '[Baret] Report ready');
    const confirmation = await eventually(async () => smtp.accepted.find((m) => m.to.includes('foreman@example.com') && subjectOf(m) === '[Baret] Confirm your e-mail address'));
    expect(parseMail(confirmation.raw).text).toMatch(/https:\/\/baret\.example\/verify-email\?token=\S+/);
    const mail = await eventually(async () => reports()[0], 20_000);
    const parsed = parseMail(mail.raw);
    expect(parsed.text).toContain(`https://baret.example/dashboard/jobs/${job_id}`);
    expect(parsed.text).toContain(violations === 0 ? 'no violations found' : `${violations} violation`);
    expect(parsed.html).toContain(`href="https://baret.example/dashboard/jobs/${job_id}"`);
    expect(parsed.text).toMatch(/Hello Ayşe Usta/);
    const unsubscribe = /<(https:\/\/baret\.example\/notifications\/unsubscribe\?token=[^>]+)>/.exec(parsed.headers['list-unsubscribe'] ?? '')?.[1];
    expect(unsubscribe).toBeDefined();
    expect(parsed.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');

    // webhook, signature verified against the raw body
    const call = await eventually(async () => hooks.requests[0], 20_000);
    expect(call.headers['baret-event']).toBe('job.completed');
    expect(verifyBaretSignature(secret, String(call.headers['baret-signature']), call.body)).toBe(true);
    expect(verifyBaretSignature('whsec_wrong', String(call.headers['baret-signature']), call.body)).toBe(false);
    const t = Number(/t=(\d+)/.exec(String(call.headers['baret-signature']))?.[1]);
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(120);
    const body = JSON.parse(call.body.toString()) as { id: string; event: string; data: Json };
    expect(body).toMatchObject({ id: call.headers['baret-delivery'], event: 'job.completed', data: { job_id, status: 'done', violation_count: violations, input_filename: 'direk.mp4' } });
    const deliveries = await eventually(async () => {
      const list = (await app.request({ method: 'GET', url: `/webhooks/${webhookId}/deliveries`, token: user.token })).json() as Json[];
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(deliveries).toEqual([expect.objectContaining({ id: body.id, event: 'job.completed', status: 'delivered', attempts: 1, last_status_code: 200 })]);

    // in-app
    const inApp = (await app.request({ method: 'GET', url: '/notifications', token: user.token })).json() as { unread: number; items: Json[] };
    expect(inApp.unread).toBe(1);
    expect(inApp.items).toEqual([expect.objectContaining({ kind: 'report_ready', job_id, title: 'Report ready', url: `/dashboard/jobs/${job_id}`, read: false })]);
    const tr = (await app.request({ method: 'GET', url: '/notifications', token: user.token, headers: { 'accept-language': 'tr' } })).json() as { items: Json[] };
    expect(tr.items[0]!.title).toBe('Rapor hazır');

    // Web Push: the encrypted body decrypts with the subscription's keys, the VAPID JWT verifies
    const pushed = await eventually(async () => pushService.requests[0], 20_000);
    expect(pushed.url).toBe('/push/abc');
    expect(pushed.headers['content-encoding']).toBe('aes128gcm');
    expect(Number(pushed.headers.ttl)).toBeGreaterThan(0);
    const claims = verifyVapid(String(pushed.headers.authorization), vapid.key, pushService.url);
    expect(claims.sub).toMatch(/^(mailto:|https:)/);
    const payload = JSON.parse(decryptPush(pushed.body, keys)) as Json;
    expect(payload).toMatchObject({ job_id, title: 'Report ready', url: `/dashboard/jobs/${job_id}` });
    expect(String(payload.body)).toContain('direk.mp4');

    // The same event again on the bus (a replay): nothing new for anyone.
    const completed = (await app.infra.eventStore.readStream(`job-${job_id}`)).find((e) => e.type === 'job_completed')!;
    await app.infra.bus.publish('job-events', [{ key: `job-${job_id}`, value: encodeEnvelope(completed) }]);
    await groupDone('notification-events');
    expect(reports()).toHaveLength(1);
    expect(new Set(hooks.requests.map((r) => r.headers['baret-delivery']))).toEqual(new Set([body.id]));
    expect(hooks.requests).toHaveLength(1);
    expect(pushService.requests).toHaveLength(1);
    expect(((await app.request({ method: 'GET', url: '/notifications', token: user.token })).json() as { items: Json[] }).items).toHaveLength(1);

    // read marks
    const id = inApp.items[0]!.id as string;
    const other = await app.signUp('stranger@example.com');
    expect((await app.request({ method: 'POST', url: `/notifications/${encodeURIComponent(id)}/read`, token: other.token })).statusCode).toBe(404);
    expect((await app.request({ method: 'POST', url: `/notifications/${encodeURIComponent(id)}/read`, token: user.token })).statusCode).toBe(204);
    expect(((await app.request({ method: 'GET', url: '/notifications', token: user.token })).json() as { unread: number }).unread).toBe(0);
    expect((await app.request({ method: 'POST', url: '/notifications/read-all', token: user.token })).json()).toEqual({ updated: 0 });

    // one-click unsubscribe: no login, turns that kind of e-mail off (and only that)
    const path = unsubscribe!.replace('https://baret.example', '');
    expect((await app.request({ method: 'GET', url: path })).body).toContain('<form method="post"');
    const forged = path.replace(/token=([^.]+)\.(.)/, (_m, p: string, c: string) => `token=${p}.${c === 'A' ? 'B' : 'A'}`);
    expect((await app.request({ method: 'POST', url: forged })).statusCode).toBe(400);
    const done = await app.request({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click' });
    expect(done.statusCode).toBe(200);
    const prefs = (await app.request({ method: 'GET', url: '/notifications/preferences', token: user.token })).json() as { preferences: Record<string, Record<string, boolean>> };
    expect(prefs.preferences.report_ready).toEqual({ email: false, push: true, in_app: true });
    expect(prefs.preferences.quota).toEqual({ email: false, push: true, in_app: true });
    expect(prefs.preferences.analysis_failed).toEqual({ email: true, push: true, in_app: true });
  }, 120_000);

  it('retries a webhook answered 500 twice: three attempts, one delivery id, delivered', async () => {
    const user = await app.signUp('api-user@example.com');
    const receiver = await startReceiver([500, 500, 200]);
    try {
      const hook = (await app.request({ method: 'POST', url: '/webhooks', token: user.token, payload: { url: receiver.url, events: ['job.completed'] } })).json() as { id: string; secret: string };
      const { job_id } = (await submitVideo(app, user.token, video)).json() as { job_id: string };
      expect((await waitForJob(app, user.token, job_id)).status).toBe('done');
      const delivery = await eventually(async () => {
        const [d] = (await app.request({ method: 'GET', url: `/webhooks/${hook.id}/deliveries`, token: user.token })).json() as Json[];
        return d?.status === 'delivered' ? d : undefined;
      }, 30_000);
      expect(delivery).toMatchObject({ attempts: 3, last_status_code: 200, status: 'delivered' });
      expect(receiver.requests).toHaveLength(3);
      expect(new Set(receiver.requests.map((r) => r.headers['baret-delivery']))).toEqual(new Set([delivery.id]));
      expect(receiver.requests.every((r) => verifyBaretSignature(hook.secret, String(r.headers['baret-signature']), r.body))).toBe(true);
      expect(new Set(receiver.requests.map((r) => r.body.toString())).size).toBe(1);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('removes a push subscription the push service says is gone (410)', async () => {
    const user = await app.signUp('gone@example.com');
    const gone = await startReceiver([410]);
    try {
      const keys = pushKeys();
      await app.request({ method: 'POST', url: '/push/subscriptions', token: user.token, payload: { endpoint: `${gone.url}/x`, keys: { p256dh: keys.p256dh, auth: keys.auth } } });
      expect(await app.notification.cols.pushSubscriptions.count({ user_id: user.id })).toBe(1);
      const { job_id } = (await submitVideo(app, user.token, video)).json() as { job_id: string };
      await waitForJob(app, user.token, job_id);
      await eventually(async () => (gone.requests.length === 1 ? true : undefined), 20_000);
      await eventually(async () => ((await app.notification.cols.pushSubscriptions.count({ user_id: user.id })) === 0 ? true : undefined));
    } finally {
      await gone.close();
    }
  }, 120_000);
});
