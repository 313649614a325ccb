import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeReplies, isCompositeRequest, startFakeOpenAi, type FakeOpenAi } from '../services/analysis/test/fakeOpenAi.js';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { api, startBaret } from './helpers/process.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let fake: FakeOpenAi;
const dir = mkdtempSync(join(tmpdir(), 'baret-crash-'));

beforeAll(async () => {
  fx = await videoFixtures();
  fake = await startFakeOpenAi();
}, 60_000);
afterAll(async () => {
  await fake.close();
  await fx.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('a process killed mid-analysis', () => {
  it('resumes the job after a restart: it ends done, nothing stays running, nothing is lost', async () => {
    const env = { BARET_DATA_DIR: dir, WEB_DIST_DIR: dir, OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'gpt-4o-mini', OPENAI_TIMEOUT_MS: '60000' };
    let reached!: () => void;
    const analysing = new Promise<void>((r) => (reached = r));
    fake.setDefault((req) => {
      if (isCompositeRequest(req)) {
        reached();
        return fakeReplies.hang();
      }
      return fakeReplies.default();
    });

    let baret = await startBaret(env);
    await api(baret.url, '/auth/register', { method: 'POST', body: JSON.stringify({ email: 'lineman@example.com', password: 'password 123' }) });
    const login = await api<{ access_token: string }>(baret.url, '/auth/login', { method: 'POST', body: JSON.stringify({ email: 'lineman@example.com', password: 'password 123' }) });
    const token = login.body.access_token;
    const form = new FormData();
    form.append('payload', JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 }));
    const { path } = await fx.photos('ppe.mp4', 6);
    form.append('file', new Blob([readFileSync(path)], { type: 'video/mp4' }), 'pole.mp4');
    const submitted = await fetch(`${baret.url}/analyze`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
    expect(submitted.status).toBe(202);
    const { job_id } = (await submitted.json()) as { job_id: string };

    await analysing;
    const running = await api<{ status: string }>(baret.url, `/jobs/${job_id}`, { token });
    expect(running.body.status).toBe('running');
    baret.child.kill('SIGKILL');
    await baret.exited;

    fake.setDefault(() => fakeReplies.default());
    baret = await startBaret(env);
    try {
      let job: { status: string; logs: Array<{ event: string; data?: Record<string, unknown> }> } | undefined;
      for (let i = 0; i < 300; i++) {
        job = (await api<typeof job>(baret.url, `/jobs/${job_id}`, { token })).body;
        if (job && ['done', 'error', 'cancelled'].includes(job.status)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(job!.status).toBe('done');
      expect(job!.logs.filter((l) => l.event === 'job_started')).toHaveLength(1);
      expect(job!.logs.filter((l) => l.event === 'job_resumed')).toEqual([expect.objectContaining({ data: expect.objectContaining({ attempt: 2 }) })]);
      const me = await api<{ quota: { lifetime_used: number } }>(baret.url, '/auth/me', { token });
      expect(me.body.quota.lifetime_used).toBe(1);
    } finally {
      baret.child.kill('SIGTERM');
      await baret.exited;
    }
  }, 120_000);

  it('resumes where it stopped: composites analysed before the crash are not asked or paid again, each step is in the timeline once', async () => {
    const dataDir = mkdtempSync(join(dir, 'resume-'));
    const env = { BARET_DATA_DIR: dataDir, WEB_DIST_DIR: dataDir, OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'gpt-4o-mini', OPENAI_TIMEOUT_MS: '60000' };
    fake.reset();
    // Nothing is ever seen, so no early stop: all six composites are asked about.
    const nothingSeen = () => fakeReplies.content({ seen: [], missing: [], persons: 1, workers: [] });
    let answered = 0;
    let reached!: () => void;
    const hanging = new Promise<void>((r) => (reached = r));
    fake.setDefault((req) => {
      if (!isCompositeRequest(req)) return fakeReplies.default();
      if (answered < 3) {
        answered++;
        return nothingSeen();
      }
      reached();
      return fakeReplies.hang();
    });

    let baret = await startBaret(env);
    await api(baret.url, '/auth/register', { method: 'POST', body: JSON.stringify({ email: 'resume@example.com', password: 'password 123' }) });
    const login = await api<{ access_token: string }>(baret.url, '/auth/login', { method: 'POST', body: JSON.stringify({ email: 'resume@example.com', password: 'password 123' }) });
    const token = login.body.access_token;
    const form = new FormData();
    form.append('payload', JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 6, frames_per_composite: 2, dedupe_by_equipment: false }));
    const { path } = await fx.photos('resume.mp4', 12);
    form.append('file', new Blob([readFileSync(path)], { type: 'video/mp4' }), 'pole.mp4');
    const submitted = await fetch(`${baret.url}/analyze`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
    expect(submitted.status).toBe(202);
    const { job_id } = (await submitted.json()) as { job_id: string };

    type Job = { status: string; logs: Array<{ event: string; data?: Record<string, unknown> }>; result?: { token_usage: { prompt_tokens: number } } };
    const waitFor = async (url: string, done: (job: Job) => boolean): Promise<Job> => {
      for (;;) {
        const job = (await api<Job>(url, `/jobs/${job_id}`, { token })).body;
        if (done(job)) return job;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    // The fourth composite's call hangs; the first three are in the timeline: the process dies now.
    await hanging;
    await waitFor(baret.url, (j) => j.logs.filter((l) => l.event === 'composite_analyzed').length === 3);
    baret.child.kill('SIGKILL');
    await baret.exited;

    fake.setDefault((req) => (isCompositeRequest(req) ? nothingSeen() : fakeReplies.default()));
    baret = await startBaret(env);
    try {
      const job = await waitFor(baret.url, (j) => ['done', 'error', 'cancelled'].includes(j.status));
      expect(job.status).toBe('done');
      const events = job.logs.map((l) => l.event);
      const analysed = job.logs.filter((l) => l.event === 'composite_analyzed').map((l) => l.data?.index);
      expect(analysed).toEqual([0, 1, 2, 3, 4, 5]);
      expect(events.filter((e) => e === 'llm_usage')).toHaveLength(6);
      for (const once of ['job_queued', 'job_started', 'job_resumed', 'video_opened', 'frames_sampled', 'frames_saved', 'composites_created', 'model_pricing', 'job_classified', 'job_completed']) {
        expect(events.filter((e) => e === once), once).toHaveLength(1);
      }
      const at = events.flatMap((e, i) => (e === 'composite_analyzed' ? [i] : []));
      expect(events.indexOf('job_resumed')).toBeGreaterThan(at[2]!);
      expect(events.indexOf('job_resumed')).toBeLessThan(at[3]!);

      // The model answered once per composite: the only other call is the one cut off by the crash.
      const calls = fake.completions.filter(isCompositeRequest);
      const paid = calls.filter((c) => !c.closedByClient);
      const image = (c: (typeof calls)[number]) => createHash('sha256').update(c.imageUrls.join('|')).digest('hex');
      expect(paid).toHaveLength(6);
      expect(new Set(paid.map(image)).size).toBe(6);
      expect(calls.length - paid.length).toBeLessThanOrEqual(1);
      // Tokens are counted once per answered call (the fake reports 1200 prompt tokens per call).
      expect(job.result?.token_usage.prompt_tokens).toBe(6 * 1200);
      const me = await api<{ quota: { lifetime_used: number } }>(baret.url, '/auth/me', { token });
      expect(me.body.quota.lifetime_used).toBe(1);
    } finally {
      baret.child.kill('SIGTERM');
      await baret.exited;
    }
  }, 180_000);
});
