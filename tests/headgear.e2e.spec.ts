/**
 * Issue 26 end to end, through HTTP with the real offline analyzer, ffmpeg and detectors: a video
 * with no person says "no worker seen" and reports nothing missing; a worker in a cap is a "no
 * hard hat" violation whose evidence says cap or hat; a worker in a hard hat is none. The JSON in
 * Turkish and English, and the PDF in both languages (pdftotext), say the same.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PPE_PHOTOS_DIR, videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { submitVideo, waitForJob } from './helpers/jobs.js';

const run = promisify(execFile);

/** A worker in a pink baseball cap (labelled "no helmet"), and one in a hard hat and vest: validation photos, never trained on. */
const CAP = 'valid__img17_jpg';
const HARD_HAT = 'valid__00392';

interface Result {
  required_groups: string[][];
  missing_groups: string[][];
  not_judged: string[][];
  no_worker_seen: boolean;
  workers_seen: number | null;
  note?: string;
  violations: Array<{ group: string[]; reason: string | null; reason_name: string | null; worker: number; image_url: string }>;
}

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let app: TestApp;
let dir: string;
let user: { token: string; id: string };
const jobs: Record<'pattern' | 'cap' | 'hat', string> = { pattern: '', cap: '', hat: '' };

async function pdfText(jobId: string, lang: 'tr' | 'en'): Promise<string> {
  const res = await app.request({ method: 'GET', url: `/jobs/${jobId}/report.pdf?lang=${lang}`, token: user.token });
  expect(res.statusCode).toBe(200);
  const path = join(dir, `${jobId}-${lang}.pdf`);
  await writeFile(path, res.rawPayload);
  return (await run('pdftotext', ['-enc', 'UTF-8', path, '-'])).stdout.replace(/\s+/g, ' ');
}

async function result(jobId: string, lang: 'tr' | 'en'): Promise<Result> {
  const job = await waitForJob(app, user.token, jobId, ['done', 'error', 'cancelled'], 180_000, lang);
  expect(job.error).toBeNull();
  expect(job.status).toBe('done');
  return job.result as unknown as Result;
}

const hatGroup = (r: Result): string[] => r.required_groups.find((g) => g.includes('pic1'))!;

beforeAll(async () => {
  fx = await videoFixtures();
  dir = await mkdtemp(join(tmpdir(), 'baret-headgear-'));
  const files = await readdir(PPE_PHOTOS_DIR);
  const photo = (prefix: string) => join(PPE_PHOTOS_DIR, files.find((f) => f.startsWith(prefix))!);
  const videos = {
    pattern: await fx.testsrc('pattern.mp4', { seconds: 6, size: '640x360' }),
    cap: await fx.slideshow('cap.mp4', [{ photo: photo(CAP), seconds: 4 }]),
    hat: await fx.slideshow('hat.mp4', [{ photo: photo(HARD_HAT), seconds: 4 }]),
  };
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test' }, { realClock: true });
  const admin = await app.signUp('admin@baret.test');
  user = await app.signUp('crew@example.com');
  await app.request({ method: 'PATCH', url: `/admin/users/${user.id}/quota`, token: admin.token, payload: { lifetime_limit: null, plan_name: 'pro' } });
  for (const [name, video] of Object.entries(videos) as Array<[keyof typeof jobs, string]>) {
    const res = await submitVideo(app, user.token, video, { job_type: 'auto', target_composites: 2, frames_per_composite: 4 });
    expect(res.statusCode).toBe(202);
    jobs[name] = (res.json() as { job_id: string }).job_id;
  }
}, 180_000);
afterAll(async () => {
  await app?.close();
  await fx?.dispose();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('no worker, no verdict', () => {
  it('a test pattern: "no worker seen", no missing group, no violation, the hard hat and hi-vis groups not judged; charged once', async () => {
    const en = await result(jobs.pattern, 'en');
    expect(en.no_worker_seen).toBe(true);
    expect(en.workers_seen).toBe(0);
    expect(en.missing_groups).toEqual([]);
    expect(en.violations).toEqual([]);
    expect(en.not_judged).toContainEqual(hatGroup(en));
    expect(en.note).toBe('No worker seen — nothing to judge');
    expect((await result(jobs.pattern, 'tr')).note).toBe('Çalışan görülmedi — değerlendirilecek bir şey yok');
    // Still an analysis the spec charges for: one unit, once.
    const me = await app.request({ method: 'GET', url: '/auth/me', token: user.token });
    expect((me.json() as { quota: { lifetime_used: number } }).quota.lifetime_used).toBe(3);
  }, 240_000);

  it('the PDF says so in both languages and lists nothing as missing', async () => {
    const en = await pdfText(jobs.pattern, 'en');
    expect(en).toContain('No worker seen — nothing to judge');
    expect(en).toContain('Not judged');
    expect(en).not.toMatch(/✗ Missing/);
    const tr = await pdfText(jobs.pattern, 'tr');
    expect(tr).toContain('Çalışan görülmedi — değerlendirilecek bir şey yok');
    expect(tr).toContain('Değerlendirilemedi');
  }, 240_000);
});

describe('caps and hard hats', () => {
  it('a worker in a cap is a "no hard hat" violation whose evidence says cap or hat, in the JSON of both languages and the PDF', async () => {
    const en = await result(jobs.cap, 'en');
    expect(en.no_worker_seen).toBe(false);
    const hat = en.violations.filter((v) => v.group.join() === hatGroup(en).join());
    expect(hat.length).toBeGreaterThan(0);
    expect(hat[0]!.reason).toBe('other_headgear');
    expect(hat[0]!.reason_name).toBe('cap or hat, not a hard hat');
    expect(en.missing_groups).toContainEqual(hatGroup(en));
    const tr = await result(jobs.cap, 'tr');
    expect(tr.violations.find((v) => v.reason === 'other_headgear')!.reason_name).toBe('kep veya şapka, baret değil');
    expect(await pdfText(jobs.cap, 'en')).toContain('cap or hat, not a hard hat');
    expect(await pdfText(jobs.cap, 'tr')).toContain('kep veya şapka, baret değil');
  }, 240_000);

  it('a worker in a hard hat is no hard-hat violation', async () => {
    const r = await result(jobs.hat, 'en');
    expect(r.no_worker_seen).toBe(false);
    expect(r.violations.filter((v) => v.group.join() === hatGroup(r).join())).toEqual([]);
    expect(r.missing_groups).not.toContainEqual(hatGroup(r));
  }, 240_000);
});
