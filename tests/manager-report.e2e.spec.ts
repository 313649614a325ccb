/**
 * A report a manager can hand to an auditor (issue 40), through the API on the seeded demo
 * organisation: the manager lists the organisation's jobs with the dashboard's filters plus who
 * recorded them and their status, opens a member's job, and its page and PDF say where, by whom, for
 * which work order, how long the video is and how long the analysis took — in Turkish and English.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MANAGER, DEMO_PASSWORD, seedDemo, type DemoSummary } from '../services/standalone/src/seedDemo.js';
import { startTestApp, type TestApp } from './helpers/app.js';

const run = promisify(execFile);

interface Item {
  job_id: string;
  status: string;
  user_email?: string;
  user_full_name?: string | null;
  site_id: string | null;
  site_name?: string | null;
  crew_id: string | null;
  crew_name?: string | null;
  work_order: string | null;
  video_duration_sec?: number | null;
  processing_sec?: number | null;
}

let app: TestApp;
let demo: DemoSummary;
let manager: string;
let member: string;
let dir: string;

const login = async (email: string) => {
  const res = await app.request({ method: 'POST', url: '/auth/login', payload: { email, password: DEMO_PASSWORD } });
  return (res.json() as { access_token: string }).access_token;
};
const get = (url: string, token: string, lang = 'en') => app.request({ method: 'GET', url, token, headers: { 'accept-language': lang } });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baret-manager-report-'));
  app = await startTestApp({}, { background: false });
  demo = await seedDemo(app, { now: app.clock.now(), jobs: 24 });
  manager = await login(DEMO_MANAGER);
  member = await login('ekip1@example.com');
  // The manager's own plan downloads reports (what a member's plan allows is issue 37's).
  const me = (await get('/auth/me', manager)).json() as { id: string };
  await app.quota.changeLimits(me.id, { plan_name: 'pro' }, 'test');
}, 120_000);
afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the organisation's jobs for a manager", () => {
  it('filters by who recorded them and by status, beside site, crew and dates', async () => {
    const all = (await get('/jobs?scope=org&limit=100', manager)).json() as Item[];
    expect(all).toHaveLength(24);
    const memberId = demo.member_ids[1]!;
    const res = await get(`/jobs?scope=org&limit=100&user_id=${memberId}`, manager);
    expect(res.statusCode, res.body).toBe(200);
    const theirs = res.json() as Item[];
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.length).toBeLessThan(all.length);
    expect(new Set(theirs.map((j) => j.user_email))).toEqual(new Set(['ekip2@example.com']));
    const done = (await get('/jobs?scope=org&limit=100&status=done', manager)).json() as Item[];
    expect(done).toHaveLength(24);
    expect((await get('/jobs?scope=org&limit=100&status=running', manager)).json()).toEqual([]);
    const both = (await get(`/jobs?scope=org&limit=100&user_id=${memberId}&crew_id=${demo.crew_ids[1]}&site_id=${demo.site_ids[0]}`, manager)).json() as Item[];
    for (const j of both) expect(j).toMatchObject({ user_email: 'ekip2@example.com', crew_id: demo.crew_ids[1], site_id: demo.site_ids[0] });
    expect((await get('/jobs?scope=org&status=finished', manager)).statusCode).toBe(400);
  });

  it("names each job's site and crew in the list, and a member's own list never shows another member's jobs", async () => {
    const all = (await get('/jobs?scope=org&limit=100', manager)).json() as Item[];
    expect(all.every((j) => typeof j.site_name === 'string' && typeof j.crew_name === 'string')).toBe(true);
    expect(new Set(all.map((j) => j.site_name))).toContain('Kadıköy Trafo Merkezi');
    const mine = (await get(`/jobs?limit=100&user_id=${demo.member_ids[1]}`, member)).json() as Item[];
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((j) => j.user_email === undefined)).toBe(true);
    const memberView = (await get(`/jobs?limit=100`, member)).json() as Item[];
    expect(mine.map((j) => j.job_id).sort()).toEqual(memberView.map((j) => j.job_id).sort());
  });
});

describe("a member's job, opened by the manager", () => {
  it('says where, by whom, for which work order, the video length and the processing time', async () => {
    const [first] = (await get(`/jobs?scope=org&limit=1&user_id=${demo.member_ids[0]}`, manager)).json() as Item[];
    const detail = (await get(`/jobs/${first!.job_id}`, manager)).json() as Item;
    expect(detail).toMatchObject({ user_email: 'ekip1@example.com', user_full_name: 'Ekip Şefi 1', crew_name: 'Hat Bakım Ekibi' });
    expect(detail.site_name).toMatch(/Kadıköy|Çankaya|Bornova/);
    expect(detail.work_order).toMatch(/^İE-2026-\d{4}$/);
    expect(detail.video_duration_sec).toBeGreaterThanOrEqual(30);
    expect(typeof detail.processing_sec).toBe('number'); // the seed records its events at once: 0 s here
    // the member sees the same facts on their own job
    const own = (await get(`/jobs/${first!.job_id}`, member)).json() as Item;
    expect(own).toMatchObject({ site_name: detail.site_name, crew_name: 'Hat Bakım Ekibi', work_order: detail.work_order, user_full_name: 'Ekip Şefi 1' });
  });

  it.each([
    ['tr', ['Saha', 'Ekip', 'İş emri', 'Kaydeden', 'Video süresi', 'Analiz süresi']],
    ['en', ['Site', 'Crew', 'Work order', 'Recorded by', 'Video length', 'Processing time']],
  ] as const)('puts them in the PDF (%s)', async (lang, labels) => {
    const [first] = (await get(`/jobs?scope=org&limit=1&user_id=${demo.member_ids[0]}`, manager)).json() as Item[];
    const detail = (await get(`/jobs/${first!.job_id}`, manager)).json() as Item;
    const res = await get(`/jobs/${first!.job_id}/report.pdf?lang=${lang}`, manager, lang);
    expect(res.statusCode, res.body).toBe(200);
    const path = join(dir, `${lang}.pdf`);
    await writeFile(path, res.rawPayload);
    const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', path, '-']);
    const text = stdout.replace(/[ \t]+/g, ' ');
    for (const label of labels) expect(text).toContain(label);
    for (const value of [detail.site_name!, 'Hat Bakım Ekibi', detail.work_order!, 'Ekip Şefi 1', 'ekip1@example.com']) expect(text).toContain(value);
    // "Duration" alone read as the work's length: the processing time is named as such
    expect(text).not.toMatch(/^ ?(Süre|Duration) /m);
    const total = Math.round(detail.video_duration_sec!);
    const [m, sec] = [Math.floor(total / 60), total % 60];
    const length = lang === 'tr' ? (m > 0 ? `${m} dk ${sec} sn` : `${sec} sn`) : m > 0 ? `${m} min ${sec} s` : `${sec} s`;
    expect(text).toMatch(new RegExp(`(Video süresi|Video length) ${length}`));
  });
});
