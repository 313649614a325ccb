import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedDataDir } from '@baret/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { multipart, submitVideo, waitForJob } from './helpers/jobs.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let video: string;
let app: TestApp;
let admin: { token: string; id: string };

beforeAll(async () => {
  fx = await videoFixtures();
  // Three photos, 2 s each: every worker is seen in several sampled frames, long enough to be judged (issue 51).
  video = (await fx.photos('ppe.mp4', 3, 2)).path;
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test', UPLOAD_MAX_BYTES: String(2 * 1024 * 1024) }, { realClock: true });
  admin = await app.signUp('admin@baret.test');
  await app.request({ method: 'PATCH', url: `/admin/users/${admin.id}/quota`, token: admin.token, payload: { lifetime_limit: null } });
}, 60_000);
afterAll(async () => {
  await app.close();
  await fx.dispose();
});

let n = 0;
const fresh = () => app.signUp(`crew${++n}@example.com`);
const objectsOf = async (jobId: string) => [...(await app.infra.objects.list(`uploads/${jobId}/`)), ...(await app.infra.objects.list(`jobs/${jobId}/`))];

describe('an analysis with the offline analyzer, end to end through HTTP', () => {
  it('uploads a video of workers, polls to done, and reports every result field', async () => {
    const user = await fresh();
    const res = await submitVideo(app, user.token, video, { job_type: 'auto' }, 'Direk çalışması.mp4');
    expect(res.statusCode).toBe(202);
    const { job_id, status } = res.json() as { job_id: string; status: string };
    expect(status).toBe('queued');

    const job = await waitForJob(app, user.token, job_id);
    expect(job.status).toBe('done');
    expect(job.error).toBeNull();
    expect(job.input_filename).toBe('Direk çalışması.mp4');
    expect(job.model_used).toMatch(/^baret-offline/);
    expect(job.estimated_cost).toBe(0);
    expect(job.currency).toBe('USD');

    const events = job.logs.map((l) => l.event);
    const steps = events.filter((e) => e !== 'frames_sampling');
    // sample → judge → cover (frames_saved: faces covered, frames stored) → store evidence → report (issue 39)
    expect(steps.slice(0, 5)).toEqual(['job_queued', 'job_started', 'video_opened', 'frames_sampled', 'composites_created']);
    expect(steps.indexOf('frames_saved')).toBeGreaterThan(steps.lastIndexOf('composite_analyzed'));
    // sampling reported its progress while it ran: a few frames_sampling events, done ≤ total, before frames_sampled
    const sampling = job.logs.filter((l) => l.event === 'frames_sampling').map((l) => l.data as { done: number; total: number });
    expect(sampling.length).toBeGreaterThanOrEqual(1);
    expect(sampling.length).toBeLessThanOrEqual(10);
    expect(sampling.every((p) => p.total === 8 && p.done >= 0 && p.done <= p.total)).toBe(true);
    expect(events.indexOf('frames_sampling')).toBeGreaterThan(events.indexOf('video_opened'));
    expect(events.lastIndexOf('frames_sampling')).toBeLessThan(events.indexOf('frames_sampled'));
    expect(events).toEqual(expect.arrayContaining(['model_pricing', 'job_classified', 'composite_analyzed', 'llm_usage']));
    expect(events.at(-1)).toBe('job_completed');
    expect(job.logs.every((l) => !Number.isNaN(Date.parse(l.timestamp)))).toBe(true);
    expect(job.logs.find((l) => l.event === 'video_opened')?.data).toMatchObject({ duration_sec: 6, width: 416, height: 416 });
    expect(job.logs.find((l) => l.event === 'frames_sampled')?.data).toMatchObject({ count: 8, sampling: 'uniform' });
    expect(JSON.stringify(job.logs)).not.toContain('uploads/'); // no storage keys in the timeline

    const r = job.result as Record<string, unknown> & {
      required_groups: string[][];
      missing_groups: string[][];
      satisfied_equipment: string[];
      not_checked: string[][];
      evidence: Array<{ code: string; composite_index: number; frame_time_sec: number; image_url: string; name: string }>;
      token_usage: Record<string, unknown>;
    };
    expect(r.job_type).toBe('genel_saha_girisi');
    expect(r.job_display_name).toBe('General site entry');
    expect(r.required_groups.length).toBeGreaterThan(0);
    expect((r.required_groups_name as string[]).length).toBe(r.required_groups.length);
    expect((r.missing_groups_name as string[]).length).toBe(r.missing_groups.length);
    expect((r.satisfied_equipment_name as string[]).length).toBe(r.satisfied_equipment.length);
    expect((r.not_checked_name as string[]).length).toBe(r.not_checked.length);
    // Every required group is accounted for exactly once: satisfied, missing or not checked.
    const satisfiedGroups = r.required_groups.filter((g) => g.some((c) => r.satisfied_equipment.includes(c)));
    expect(satisfiedGroups.length + r.missing_groups.length + r.not_checked.length).toBe(r.required_groups.length);
    // The photographs show hard hats, and workers without a vest (the first photo's three, labelled
    // no_vest): the vest group is missing, proven by violations, never satisfied; a satisfied group
    // is named by one item (the offline analyzer cannot tell helmet classes apart).
    const violations = r.violations as Array<{ group: string[]; image_url: string }>;
    const vestGroup = r.required_groups.find((g) => g.includes('pic23'))!;
    expect(r.missing_groups).toContainEqual(vestGroup);
    expect(r.satisfied_equipment).not.toContain('pic23');
    expect(violations.some((v) => v.group.join() === vestGroup.join())).toBe(true);
    expect(r.satisfied_equipment.every((c) => !violations.some((v) => v.group.includes(c)))).toBe(true);
    expect(r.satisfied_equipment.length).toBeLessThanOrEqual(1);
    // Boots cannot be checked offline: never claimed present or missing.
    expect(r.not_checked.flat()).toEqual(expect.arrayContaining(['pic25']));
    expect(r.missing_groups.flat()).not.toContain('pic25');
    expect(r.composites_processed).toBeGreaterThanOrEqual(1);
    expect(r.model_used).toBe(job.model_used);
    expect(r.token_usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, estimated_cost: 0, currency: 'USD' });
    expect(typeof r.duration_seconds).toBe('number');
    expect(r.duration_seconds as number).toBeGreaterThanOrEqual(0);

    // Evidence: one per satisfied item (a composite), one crop per violation.
    expect(r.evidence.map((e) => e.code)).toEqual(r.satisfied_equipment);
    for (const e of r.evidence) {
      expect(e.name.length).toBeGreaterThan(0);
      expect(e.frame_time_sec).toBeGreaterThanOrEqual(0);
      expect(e.frame_time_sec).toBeLessThanOrEqual(6);
    }
    for (const url of [...r.evidence.map((e) => e.image_url), violations[0]!.image_url]) {
      const image = await app.request({ method: 'GET', url, token: user.token });
      expect(image.statusCode).toBe(200);
      expect(image.headers['content-type']).toBe('image/jpeg');
      expect(image.rawPayload.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    }

    // The raw video is gone; frames and composites stay for the report.
    expect(await app.infra.objects.list(`uploads/${job_id}/`)).toEqual([]);
    expect((await app.infra.objects.list(`jobs/${job_id}/composites/`)).length).toBeGreaterThan(0);

    // The same result in Turkish.
    // Without Accept-Language the API answers in Turkish.
    const tr = (await app.app.inject({ method: 'GET', url: `/jobs/${job_id}`, headers: { authorization: `Bearer ${user.token}` } })).json() as { result: Record<string, unknown> };
    expect(tr.result.job_display_name).toBe('Çalışma sahasına giriş');

    const list = (await app.request({ method: 'GET', url: '/jobs?limit=1', token: user.token })).json() as Array<Record<string, unknown>>;
    expect(list).toEqual([
      {
        job_id,
        status: 'done',
        created_at: expect.any(String),
        input_filename: 'Direk çalışması.mp4',
        job_type: 'genel_saha_girisi',
        job_display_name: 'General site entry',
        model_used: job.model_used,
        estimated_cost: 0,
        currency: 'USD',
        error: null,
        // Where and by whom (issue 28): none given; whether the finished job found violations.
        site_id: null,
        crew_id: null,
        work_order: null,
        has_violations: (job.result as { violations: unknown[] }).violations.length > 0,
        // As reviewed (issue 53): with no review, the result's.
        violation_count: (job.result as { violations: unknown[] }).violations.length,
        // Named for the report (issue 40): no site or crew; the video's length apart from the processing time.
        site_name: null,
        crew_name: null,
        video_duration_sec: 6,
        processing_sec: expect.any(Number),
      },
    ]);
    const me = (await app.request({ method: 'GET', url: '/auth/me', token: user.token })).json() as { quota: { lifetime_used: number } };
    expect(me.quota.lifetime_used).toBe(1);
  }, 120_000);

  it('uses the chosen task in manual mode, and with the built-in analyzer asks every composite about every group, dedupe or not (issue 39)', async () => {
    const user = await fresh();
    const res = await submitVideo(app, user.token, video, { job_type: 'ag_havai_hat_bakim', dedupe_by_equipment: true, target_composites: 2, frames_per_composite: 2 });
    expect(res.statusCode).toBe(202);
    const job = await waitForJob(app, user.token, (res.json() as { job_id: string }).job_id);
    expect(job.status).toBe('done');
    expect(job.logs.find((l) => l.event === 'job_classified')?.data).toMatchObject({ job_type: 'ag_havai_hat_bakim', method: 'manual' });
    // The built-in analyzer costs nothing: dedupe never spares it a composite nor an item, so a
    // worker seen later without an item already found missing is still reported.
    const analyzed = job.logs.filter((l) => l.event === 'composite_analyzed').map((l) => l.data as { asked: string[] });
    expect(analyzed).toHaveLength(2);
    expect(analyzed[1]!.asked).toEqual(analyzed[0]!.asked);
    expect(job.logs.some((l) => l.event === 'early_stop_triggered')).toBe(false);
    expect((job.result as { not_asked: unknown[] }).not_asked).toEqual([]);
  }, 120_000);
});

describe('upload validation', () => {
  const tasksSlug = async () => ((await app.request({ method: 'GET', url: '/tasks' })).json() as Array<{ slug: string }>)[0]!.slug;

  it.each([
    [{ target_composites: 0 }, /target_composites/],
    [{ target_composites: 21 }, /target_composites/],
    [{ frames_per_composite: 1 }, /frames_per_composite/],
    [{ frames_per_composite: 9 }, /frames_per_composite/],
    [{ sampling: 'random' }, /sampling/],
    [{ job_type: 'not_a_task' }, /Unknown job type/],
    [{ dedupe_by_equipment: 'yes' }, /dedupe_by_equipment/],
  ])('answers 400 for %j and stores nothing', async (params, message) => {
    const user = await fresh();
    const before = await app.infra.objects.list('uploads/');
    const res = await submitVideo(app, user.token, video, params);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect((res.json() as { detail: string }).detail).toMatch(message);
    expect(await app.infra.objects.list('uploads/')).toEqual(before);
    expect((await app.request({ method: 'GET', url: '/jobs', token: user.token })).json()).toEqual([]);
  });

  it('accepts the settings inside a params object, and a manual task slug', async () => {
    const user = await fresh();
    const slug = await tasksSlug();
    const body = await multipart({ payload: JSON.stringify({ params: { job_type: slug, sampling: 'uniform', target_composites: 1, frames_per_composite: 2 } }) }, { name: 'a.mp4', type: 'video/mp4', data: readFileSync(video) });
    const res = await app.request({ method: 'POST', url: '/analyze', token: user.token, ...body });
    expect(res.statusCode).toBe(202);
    const job = await waitForJob(app, user.token, (res.json() as { job_id: string }).job_id);
    expect(job.logs[0]!.data).toMatchObject({ params: { job_type: slug, target_composites: 1, frames_per_composite: 2, sampling: 'uniform', dedupe_by_equipment: true } });
  }, 120_000);

  it('answers 415 for a file that is not a video, and keeps nothing: no object, no job, no quota used', async () => {
    const user = await fresh();
    const text = Buffer.from('this is not a video at all, just some text\n'.repeat(100));
    const res = await submitVideo(app, user.token, text, {}, 'notes.mp4');
    expect(res.statusCode).toBe(415);
    expect((res.json() as { detail: string }).detail).toMatch(/not a video/i);
    const photos = sharedDataDir('ppe-photos', 'safety-vest-v4', 'images');
    const png = readFileSync(join(photos, (await import('node:fs')).readdirSync(photos)[0]!));
    expect((await submitVideo(app, user.token, png, {}, 'photo.jpg')).statusCode).toBe(415);
    expect((await app.request({ method: 'GET', url: '/jobs', token: user.token })).json()).toEqual([]);
    expect((await app.quota.client.getQuota(user.id)).lifetime_used).toBe(0);
    const leftovers = (await app.infra.objects.list('uploads/')).length;
    const jobsOfUser = await app.job.jobs.find({ where: { user_id: user.id } });
    expect(jobsOfUser).toEqual([]);
    expect(leftovers).toBe((await app.infra.objects.list('uploads/')).length);
  });

  it('answers 413 above the configured size limit, and 400 without a file', async () => {
    const user = await fresh();
    const big = Buffer.concat([readFileSync(video), Buffer.alloc(2 * 1024 * 1024)]);
    const res = await submitVideo(app, user.token, big);
    expect(res.statusCode).toBe(413);
    expect((res.json() as { detail: string }).detail).toMatch(/larger than the limit of 2 MiB/);
    const noFile = await app.request({ method: 'POST', url: '/analyze', token: user.token, ...(await multipart({ payload: '{}' })) });
    expect(noFile.statusCode).toBe(400);
    const notMultipart = await app.request({ method: 'POST', url: '/analyze', token: user.token, payload: { payload: '{}' } });
    expect(notMultipart.statusCode).toBe(400);
    expect((await app.quota.client.getQuota(user.id)).lifetime_used).toBe(0);
  });

  it('needs a login', async () => {
    expect((await app.request({ method: 'POST', url: '/analyze', ...(await multipart({ payload: '{}' })) })).statusCode).toBe(401);
    expect((await app.request({ method: 'GET', url: '/jobs' })).statusCode).toBe(401);
  });
});

describe('quota', () => {
  it('refuses a third job on the free plan with 403 and the quota message as a string detail', async () => {
    const user = await fresh();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await submitVideo(app, user.token, video, { target_composites: 1, frames_per_composite: 2 });
      expect(res.statusCode).toBe(202);
      ids.push((res.json() as { job_id: string }).job_id);
    }
    // Without Accept-Language the API answers in Turkish, the product's default.
    const raw = await multipart({ payload: JSON.stringify({ job_type: 'auto', sampling: 'uniform' }) }, { name: 'v.mp4', type: 'video/mp4', data: readFileSync(video) });
    const third = await app.app.inject({ method: 'POST', url: '/analyze', payload: raw.payload, headers: { ...raw.headers, authorization: `Bearer ${user.token}` } });
    expect(third.statusCode).toBe(403);
    expect((third.json() as { detail: unknown }).detail).toBe('Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.');
    // The web app shows the detail as is: in English when the client asks for English.
    const body = await multipart({ payload: JSON.stringify({ job_type: 'auto', sampling: 'uniform' }) }, { name: 'v.mp4', type: 'video/mp4', data: readFileSync(video) });
    const english = await app.request({ method: 'POST', url: '/analyze', token: user.token, payload: body.payload, headers: { ...body.headers, 'accept-language': 'en-GB,en;q=0.9' } });
    expect(english.statusCode).toBe(403);
    expect((english.json() as { detail: unknown }).detail).toBe('You have reached your usage limit. Please contact an admin.');
    expect((await app.request({ method: 'GET', url: '/jobs', token: user.token })).json()).toHaveLength(2);
    for (const id of ids) await waitForJob(app, user.token, id);
  }, 120_000);
});

describe('who sees what', () => {
  it('answers 404 for another user’s job and its evidence; admins see every job with the user', async () => {
    const owner = await fresh();
    const other = await fresh();
    const res = await submitVideo(app, owner.token, video, { target_composites: 1, frames_per_composite: 2 }, 'owner-only.mp4');
    const { job_id } = res.json() as { job_id: string };
    await waitForJob(app, owner.token, job_id);
    expect((await app.request({ method: 'GET', url: `/jobs/${job_id}`, token: other.token })).statusCode).toBe(404);
    expect((await app.request({ method: 'GET', url: `/jobs/${job_id}/evidence/0`, token: other.token })).statusCode).toBe(404);
    expect((await app.request({ method: 'GET', url: '/jobs', token: other.token })).json()).toEqual([]);
    expect((await app.request({ method: 'GET', url: '/admin/jobs', token: other.token })).statusCode).toBe(403);

    const adminView = await app.request({ method: 'GET', url: `/jobs/${job_id}`, token: admin.token });
    expect(adminView.statusCode).toBe(200);
    const all = (await app.request({ method: 'GET', url: '/admin/jobs?q=owner-only', token: admin.token })).json() as Array<Record<string, unknown>>;
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ job_id, user_email: `crew${n - 1}@example.com`, user_full_name: null });
    const byEmail = (await app.request({ method: 'GET', url: `/admin/jobs?q=${encodeURIComponent(`CREW${n - 1}@`)}`, token: admin.token })).json() as unknown[];
    expect(byEmail).toHaveLength(1);
    const byStatus = (await app.request({ method: 'GET', url: '/admin/jobs?q=done&limit=500', token: admin.token })).json() as Array<{ status: string }>;
    expect(byStatus.length).toBeGreaterThan(0);
    expect(byStatus.every((j) => j.status === 'done')).toBe(true);
    expect(((await app.request({ method: 'GET', url: '/admin/jobs?limit=1', token: admin.token })).json() as unknown[]).length).toBe(1);
  }, 120_000);
});

describe('admin delete and usage', () => {
  it('deletes a finished job with every stored object; its id is then unknown', async () => {
    const user = await fresh();
    const { job_id } = (await submitVideo(app, user.token, video, { target_composites: 1, frames_per_composite: 2 })).json() as { job_id: string };
    await waitForJob(app, user.token, job_id);
    expect((await objectsOf(job_id)).length).toBeGreaterThan(0);
    expect((await app.request({ method: 'DELETE', url: `/admin/jobs/${job_id}`, token: user.token })).statusCode).toBe(403);
    expect((await app.request({ method: 'DELETE', url: `/admin/jobs/${job_id}`, token: admin.token })).statusCode).toBe(204);
    expect(await objectsOf(job_id)).toEqual([]);
    expect((await app.request({ method: 'GET', url: `/jobs/${job_id}`, token: user.token })).statusCode).toBe(404);
    expect((await app.request({ method: 'DELETE', url: `/admin/jobs/${job_id}`, token: admin.token })).statusCode).toBe(404);
    const stream = await app.infra.eventStore.readStream(`job-${job_id}`);
    expect(stream.at(-1)?.type).toBe('job_deleted');
  }, 120_000);

  it('reports platform usage per user', async () => {
    const usage = await app.request({ method: 'GET', url: '/admin/usage', token: admin.token });
    expect(usage.statusCode).toBe(200);
    const body = usage.json() as { total_cost: number; currency: string; users: Array<{ email: string; job_count: number }> };
    expect(body.currency).toBe('USD');
    expect(body.users.length).toBeGreaterThan(0);
    expect(body.users.every((u) => u.job_count >= 1 && u.email.endsWith('@example.com'))).toBe(true);
  });
});

describe('GET /tasks', () => {
  it('names tasks in Turkish by default and in English on request', async () => {
    const tr = (await app.app.inject({ method: 'GET', url: '/tasks' })).json() as Array<{ slug: string; name: string }>;
    const en = (await app.request({ method: 'GET', url: '/tasks', headers: { 'accept-language': 'en-US,en;q=0.9' } })).json() as Array<{ slug: string; name: string }>;
    expect(tr.length).toBeGreaterThanOrEqual(55);
    expect(tr.map((t) => t.slug)).toEqual(en.map((t) => t.slug));
    const site = (list: Array<{ slug: string; name: string }>) => list.find((t) => t.slug === 'genel_saha_girisi')?.name;
    expect(site(tr)).toBe('Çalışma sahasına giriş');
    expect(site(en)).toBe('General site entry');
    expect(tr.some((t) => t.slug.startsWith('ag_')) && tr.some((t) => t.slug.startsWith('yg_'))).toBe(true);
  });
});


