import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { askedCodes, fakeReplies, isCompositeRequest, startFakeOpenAi, type FakeOpenAi } from '../services/analysis/test/fakeOpenAi.js';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { submitVideo, waitForJob } from './helpers/jobs.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let video: string;
let fake: FakeOpenAi;
let app: TestApp;
let admin: { token: string; id: string };

beforeAll(async () => {
  fx = await videoFixtures();
  video = (await fx.photos('ppe.mp4', 12)).path;
  fake = await startFakeOpenAi();
  app = await startTestApp(
    { BARET_ADMIN_EMAILS: 'admin@baret.test', OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-key', OPENAI_MODEL: 'gpt-4o-mini', OPENAI_TIMEOUT_MS: '1000' },
    { realClock: true },
  );
  admin = await app.signUp('admin@baret.test');
}, 60_000);
afterAll(async () => {
  await app.close();
  await fake.close();
  await fx.dispose();
});
beforeEach(() => fake.reset());

let n = 0;
const fresh = () => app.signUp(`vision${++n}@example.com`);

describe('analysis through an OpenAI-compatible endpoint', () => {
  it('sends the composites as images with a strict JSON schema, and reports tokens and real cost', async () => {
    const user = await fresh();
    // The first composite shows nobody, so the second one is asked too.
    fake.script(fakeReplies.default(), fakeReplies.content({ seen: [], missing: [], persons: 0, workers: [] }));
    const res = await submitVideo(app, user.token, video, { job_type: 'auto', target_composites: 2, frames_per_composite: 4, dedupe_by_equipment: false });
    const job = await waitForJob(app, user.token, (res.json() as { job_id: string }).job_id);
    expect(job.status).toBe('done');
    expect(job.model_used).toBe('gpt-4o-mini');

    const [classify, ...analyses] = fake.completions;
    expect(classify!.headers.authorization).toBe('Bearer sk-test-key');
    expect(classify!.body?.model).toBe('gpt-4o-mini');
    expect(classify!.imageUrls.length).toBeGreaterThanOrEqual(1);
    expect(classify!.imageUrls.every((u) => u.startsWith('data:image/jpeg;base64,'))).toBe(true);
    expect(classify!.body?.response_format).toMatchObject({ type: 'json_schema', json_schema: { strict: true } });
    expect(analyses.length).toBe(2);
    expect(analyses.every(isCompositeRequest)).toBe(true);
    expect(analyses[0]!.imageUrls).toHaveLength(1);
    // It asks about the equipment the classified task requires.
    const result = job.result as { job_type: string; required_groups: string[][]; satisfied_equipment: string[]; missing_groups: string[][]; not_checked: string[][]; token_usage: Record<string, number | string> };
    expect(new Set(askedCodes(analyses[0]!))).toEqual(new Set(result.required_groups.flat()));
    // Without dedupe, the second composite is asked about everything again.
    expect(new Set(askedCodes(analyses[1]!))).toEqual(new Set(result.required_groups.flat()));
    // The fake sees everything asked: nothing missing, nothing "not checked" with a real model.
    expect(result.missing_groups).toEqual([]);
    expect(result.not_checked).toEqual([]);
    const usage = job.logs.filter((l) => l.event === 'llm_usage');
    expect(usage).toHaveLength(3);
    const prompt = usage.reduce((s, l) => s + Number(l.data!.prompt_tokens), 0);
    expect(result.token_usage.prompt_tokens).toBe(prompt);
    expect(result.token_usage.estimated_cost as number).toBeGreaterThan(0);
    expect(job.estimated_cost).toBeCloseTo(result.token_usage.estimated_cost as number, 6);
    expect(job.logs.find((l) => l.event === 'model_pricing')?.data).toMatchObject({ model: 'gpt-4o-mini', known_price: true });
    type Summary = { total_prompt_tokens: number; users: Array<{ user_id: string; total_prompt_tokens: number; total_cost: number }> };
    const mine = await (async () => {
      for (let i = 0; i < 50; i++) {
        const s = (await app.request({ method: 'GET', url: '/admin/usage', token: admin.token })).json() as Summary;
        const row = s.users.find((u) => u.user_id === user.id);
        if (row && row.total_prompt_tokens === prompt) return row;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('usage not projected');
    })();
    expect(mine.total_cost).toBeCloseTo(job.estimated_cost!, 6);
  }, 60_000);

  it('keeps asking about satisfied groups (a later worker may go without them): no early stop while nothing is violated', async () => {
    const user = await fresh();
    const res = await submitVideo(app, user.token, video, { job_type: 'genel_saha_girisi', target_composites: 4, frames_per_composite: 2 });
    const job = await waitForJob(app, user.token, (res.json() as { job_id: string }).job_id);
    expect(job.status).toBe('done');
    expect(job.logs.some((l) => l.event === 'early_stop_triggered')).toBe(false);
    const asked = job.logs.filter((l) => l.event === 'composite_analyzed').map((l) => (l.data as { asked: string[] }).asked);
    expect(asked).toHaveLength(4);
    for (const a of asked) expect(a).toEqual(asked[0]);
    const r = job.result as { composites_processed: number; violations: unknown[]; missing_groups: unknown[] };
    expect(r.composites_processed).toBe(4);
    expect(r.violations).toEqual([]);
    expect(r.missing_groups).toEqual([]);
    expect(fake.completions).toHaveLength(4); // manual task: no classification call
  }, 60_000);

  it('with dedupe, keeps asking about violated groups where the sampler could not tell who is shown (uniform sampling: a new worker may be there), reporting the violations with the model’s boxes (issue 39)', async () => {
    const user = await fresh();
    // Worker 1 of frame 2 wears nothing that was asked about.
    fake.setDefault((req) =>
      isCompositeRequest(req)
        ? fakeReplies.content({
            seen: [],
            missing: askedCodes(req),
            persons: 1,
            workers: [{ frame: 2, worker: 1, box: { x: 0.25, y: 0.1, w: 0.5, h: 0.8 }, verdicts: askedCodes(req).map((code) => ({ code, verdict: 'not_worn' })) }],
          })
        : fakeReplies.default(),
    );
    const res = await submitVideo(app, user.token, video, { job_type: 'genel_saha_girisi', target_composites: 4, frames_per_composite: 2 });
    const job = await waitForJob(app, user.token, (res.json() as { job_id: string }).job_id);
    expect(job.status).toBe('done');
    // Dedupe never skips a composite in which a worker not judged yet may appear.
    expect(job.logs.some((l) => l.event === 'early_stop_triggered')).toBe(false);
    const r = job.result as { composites_processed: number; required_groups: string[][]; missing_groups: string[][]; violations: Array<{ group: string[]; worker: number; box: unknown; time_sec: number; image_url: string }> };
    expect(r.composites_processed).toBe(4);
    expect(r.missing_groups).toEqual(r.required_groups);
    expect(r.violations.map((v) => v.group)).toEqual(r.required_groups);
    expect(r.violations.every((v) => v.worker === 1 && JSON.stringify(v.box) === JSON.stringify({ x: 0.25, y: 0.1, w: 0.5, h: 0.8 }))).toBe(true);
    const crop = await app.request({ method: 'GET', url: r.violations[0]!.image_url, token: user.token });
    expect(crop.statusCode).toBe(200);
    expect(fake.completions).toHaveLength(4);
  }, 60_000);

  it('follows workers across frames and composites: one violation per worker and run, numbers kept over the video', async () => {
    const user = await fresh();
    const hatCodes = ['pic1', 'pic2', 'pic3'];
    // Every frame: worker A (left) bare-headed, worker B (right) fully equipped; the model lists B
    // first and numbers workers its own way. From the third composite on, A wears a hard hat.
    let composite = 0;
    fake.setDefault((req) => {
      if (!isCompositeRequest(req)) return fakeReplies.default();
      const codes = askedCodes(req);
      const aBare = composite++ < 2;
      const verdicts = (bare: boolean) => codes.map((code) => ({ code, verdict: bare && hatCodes.includes(code) ? 'not_worn' : 'worn' }));
      return fakeReplies.content({
        seen: codes.map((code) => ({ code, frame: 1, confidence: 0.9 })),
        missing: [],
        persons: 2,
        workers: [1, 2].flatMap((frame) => [
          { frame, worker: 1, box: { x: 0.6 + frame * 0.01, y: 0.1, w: 0.25, h: 0.8 }, verdicts: verdicts(false) },
          { frame, worker: 2, box: { x: 0.1 + frame * 0.01, y: 0.1, w: 0.25, h: 0.8 }, verdicts: verdicts(aBare) },
        ]),
      });
    });
    const res = await submitVideo(app, user.token, video, { job_type: 'genel_saha_girisi', target_composites: 4, frames_per_composite: 2, dedupe_by_equipment: false });
    const job = await waitForJob(app, user.token, (res.json() as { job_id: string }).job_id);
    expect(job.status).toBe('done');
    const r = job.result as { composites_processed: number; violations: Array<{ group: string[]; worker: number; time_sec: number; end_sec: number; frames: number }> };
    expect(r.composites_processed).toBe(4);
    // Four frames of worker A without a hard hat over two composites: one violation, not four.
    expect(r.violations).toHaveLength(1);
    const [v] = r.violations;
    expect(v!.group).toEqual(hatCodes);
    expect(v!.frames).toBe(4);
    expect(v!.end_sec).toBeGreaterThan(v!.time_sec);
    // Worker A stood left of B in the first frame, so it is worker 1 over the whole video.
    expect(v!.worker).toBe(1);
  }, 60_000);

  it('retries after a 429 and succeeds', async () => {
    const user = await fresh();
    fake.script(fakeReplies.rateLimited('0'));
    const res = await submitVideo(app, user.token, video, { job_type: 'genel_saha_girisi', target_composites: 1, frames_per_composite: 2 });
    const job = await waitForJob(app, user.token, (res.json() as { job_id: string }).job_id);
    expect(job.status).toBe('done');
    expect(fake.completions).toHaveLength(2);
  }, 60_000);

  it('asks again once after a malformed answer', async () => {
    const user = await fresh();
    fake.script(fakeReplies.malformed());
    const res = await submitVideo(app, user.token, video, { job_type: 'genel_saha_girisi', target_composites: 1, frames_per_composite: 2 });
    const job = await waitForJob(app, user.token, (res.json() as { job_id: string }).job_id);
    expect(job.status).toBe('done');
    expect(fake.completions).toHaveLength(2);
  }, 60_000);

  it('ends the job in error with a clear reason after two malformed answers, gives the quota back and deletes the video', async () => {
    const user = await fresh();
    fake.script(fakeReplies.malformed(), fakeReplies.malformed());
    const res = await submitVideo(app, user.token, video, { job_type: 'genel_saha_girisi', target_composites: 1, frames_per_composite: 2 });
    const { job_id } = res.json() as { job_id: string };
    const job = await waitForJob(app, user.token, job_id);
    expect(job.status).toBe('error');
    expect(job.error).toMatch(/could not read twice/);
    expect(job.logs.at(-1)?.event).toBe('job_failed');
    expect((await app.quota.client.getQuota(user.id)).lifetime_used).toBe(0);
    expect(await app.infra.objects.list(`uploads/${job_id}/`)).toEqual([]);
  }, 60_000);

  it('ends the job in error when the model does not answer in time', async () => {
    const user = await fresh();
    fake.setDefault(() => fakeReplies.hang());
    const res = await submitVideo(app, user.token, video, { job_type: 'genel_saha_girisi', target_composites: 1, frames_per_composite: 2 });
    const job = await waitForJob(app, user.token, (res.json() as { job_id: string }).job_id);
    expect(job.status).toBe('error');
    expect(job.error).toMatch(/time|answer/i);
    expect(fake.completions.length).toBeGreaterThanOrEqual(2); // retried before giving up
  }, 90_000);

  it('lets an admin cancel a running job: it stops, the quota unit comes back, the video is deleted', async () => {
    const user = await fresh();
    let asked!: () => void;
    const reached = new Promise<void>((r) => (asked = r));
    fake.setDefault(() => {
      asked();
      return fakeReplies.hang();
    });
    const res = await submitVideo(app, user.token, video, { job_type: 'genel_saha_girisi', target_composites: 2, frames_per_composite: 2 });
    const { job_id } = res.json() as { job_id: string };
    await reached;
    expect((await app.request({ method: 'DELETE', url: `/admin/jobs/${job_id}`, token: admin.token })).statusCode).toBe(409);
    const cancel = await app.request({ method: 'POST', url: `/admin/jobs/${job_id}/cancel`, token: admin.token });
    expect(cancel.statusCode).toBe(202);
    const job = await waitForJob(app, user.token, job_id, ['cancelled', 'error', 'done'], 30_000);
    expect(job.status).toBe('cancelled');
    expect(job.error).toBe('This job was stopped by an administrator.');
    expect(job.logs.map((l) => l.event)).toEqual(expect.arrayContaining(['job_cancel_requested', 'job_cancelled']));
    expect((await app.quota.client.getQuota(user.id)).lifetime_used).toBe(0);
    expect(await app.infra.objects.list(`uploads/${job_id}/`)).toEqual([]);
    expect((await app.request({ method: 'POST', url: `/admin/jobs/${job_id}/cancel`, token: admin.token })).statusCode).toBe(409);
    expect((await app.request({ method: 'POST', url: `/admin/jobs/${job_id}/cancel`, token: user.token })).statusCode).toBe(403);
  }, 60_000);

  it('deletes a user with their jobs', async () => {
    const user = await fresh();
    const res = await submitVideo(app, user.token, video, { job_type: 'genel_saha_girisi', target_composites: 1, frames_per_composite: 2 });
    const { job_id } = res.json() as { job_id: string };
    await waitForJob(app, user.token, job_id);
    expect((await app.request({ method: 'DELETE', url: `/admin/users/${user.id}`, token: admin.token })).statusCode).toBe(204);
    for (let i = 0; i < 100 && (await app.job.jobs.get(job_id)); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await app.job.jobs.get(job_id)).toBeNull();
    expect(await app.infra.objects.list(`jobs/${job_id}/`)).toEqual([]);
    const all = (await app.request({ method: 'GET', url: '/admin/jobs?limit=500', token: admin.token })).json() as Array<{ job_id: string }>;
    expect(all.some((j) => j.job_id === job_id)).toBe(false);
  }, 60_000);
});
