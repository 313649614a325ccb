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
      const starts = job!.logs.filter((l) => l.event === 'job_started');
      expect(starts).toHaveLength(2);
      expect(starts[1]!.data).toMatchObject({ attempt: 2, resumed: true });
      const me = await api<{ quota: { lifetime_used: number } }>(baret.url, '/auth/me', { token });
      expect(me.body.quota.lifetime_used).toBe(1);
    } finally {
      baret.child.kill('SIGTERM');
      await baret.exited;
    }
  }, 120_000);
});
