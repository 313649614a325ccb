import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderJobReport } from '../services/job/src/report/pdf.js';
import { PPE_PHOTOS_DIR, videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { submitVideo, waitForJob, type JobDetail } from './helpers/jobs.js';

const run = promisify(execFile);
/** A photo of the validation set by its file name's prefix. */
const vest4 = (prefix: string): string => {
  const file = readdirSync(PPE_PHOTOS_DIR).find((f) => f.startsWith(prefix));
  if (!file) throw new Error(`no photo ${prefix} in ${PPE_PHOTOS_DIR}`);
  return join(PPE_PHOTOS_DIR, file);
};

/** The PDF's text (pdftotext, layout kept) and its pages as PNG files (pdftoppm), with the count of embedded images (pdfimages). */
async function inspectPdf(dir: string, name: string, pdf: Buffer) {
  const path = join(dir, `${name}.pdf`);
  await writeFile(path, pdf);
  const { stdout: text } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', path, '-']);
  await run('pdftoppm', ['-png', '-r', '50', path, join(dir, name)]);
  const pages = (await readdir(dir)).filter((f) => f.startsWith(`${name}-`) && f.endsWith('.png'));
  const { stdout: list } = await run('pdfimages', ['-list', path]);
  const images = list.split('\n').slice(2).filter((line) => /\bimage\b/.test(line)).length;
  return { text, pages: pages.map((p) => join(dir, p)), images };
}

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let app: TestApp;
let dir: string;
let pro: { token: string; id: string };
let admin: { token: string; id: string };
let free: { token: string; id: string };
let job: JobDetail;
let video: string;

beforeAll(async () => {
  fx = await videoFixtures();
  dir = await mkdtemp(join(tmpdir(), 'baret-pdf-'));
  // A crew in hard hats without vests (labels: helmet and no_vest only): the report has both
  // evidence frames (hard hat worn) and violations (no vest).
  video = await fx.slideshow(
    'crew.mp4',
    ['valid__00340', 'valid__00516', 'valid__00534', 'valid__00539'].map((prefix) => ({ photo: vest4(prefix), seconds: 1.5 })),
  );
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test' }, { realClock: true });
  admin = await app.signUp('admin@baret.test');
  pro = await app.signUp('pro@example.com');
  free = await app.signUp('free@example.com');
  await app.request({ method: 'PATCH', url: `/admin/users/${pro.id}/quota`, token: admin.token, payload: { plan_name: 'pro' } });
  const res = await submitVideo(app, pro.token, video, { job_type: 'auto' }, 'Direk çalışması — şantiye.mp4');
  expect(res.statusCode).toBe(202);
  job = await waitForJob(app, pro.token, (res.json() as { job_id: string }).job_id, ['done', 'error', 'cancelled'], 120_000, 'tr');
  expect(job.status).toBe('done');
}, 180_000);
afterAll(async () => {
  await app?.close();
  await fx?.dispose();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the PDF report of a job', () => {
  it('renders in Turkish through HTTP: the job, its equipment, why items are not checked, the evidence frames and the violations', async () => {
    const res = await app.request({ method: 'GET', url: `/jobs/${job.job_id}/report.pdf?lang=tr`, token: pro.token });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="baret-job-${job.job_id}-tr.pdf"`);
    const { text, pages, images } = await inspectPdf(dir, 'tr', res.rawPayload);
    expect(text).toContain('KKD analiz raporu');
    expect(text).toContain(job.job_id);
    expect(text).toContain('Direk çalışması — şantiye.mp4');
    expect(text).toContain('Çalışma sahasına giriş'); // the job type, named in Turkish
    for (const label of ['Gerekli ekipman', 'Takılı görülen', 'Eksik', 'Kontrol edilmedi', 'Kanıt kareleri', 'Analiz süresi', 'Maliyet', 'Tamamlandı']) expect(text).toContain(label);
    expect(text).toContain('yerleşik'); // what was checked, on the offline analyzer, in words for users
    expect(text).not.toContain('OPENAI'); // operators' settings stay on the admin page and in the docs
    expect(text).toMatch(/0,0000 USD/);
    expect(text).toMatch(/Sayfa 1 \/ \d/);
    // every page became a PNG with something on it; the evidence frames are embedded images
    expect(pages.length).toBeGreaterThanOrEqual(1);
    for (const page of pages) expect((await stat(page)).size).toBeGreaterThan(2000);
    const evidence = (job.result?.evidence as unknown[] | undefined) ?? [];
    expect(evidence.length).toBeGreaterThan(0);
    const violations = (job.result?.violations as unknown[] | undefined) ?? [];
    expect(violations.length).toBeGreaterThan(0);
    expect(text).toContain('İhlaller');
    expect(images).toBeGreaterThanOrEqual(1);
    if (process.env.BARET_KEEP_PDF) await writeFile(process.env.BARET_KEEP_PDF, res.rawPayload);
    console.log(`PDF report (tr): ${res.rawPayload.length} bytes, ${pages.length} page(s), ${images} image(s)`);
  });

  it('lists the job with its job type and the type’s name in the reader’s language (history rows show it)', async () => {
    const res = await app.request({ method: 'GET', url: '/jobs?limit=5', token: pro.token, headers: { 'accept-language': 'tr' } });
    const row = (res.json() as Array<Record<string, unknown>>).find((j) => j.job_id === job.job_id);
    expect(row).toMatchObject({ job_type: 'genel_saha_girisi', job_display_name: 'Çalışma sahasına giriş' });
  });

  it('lets an admin find it by its job type’s name in either language', async () => {
    for (const q of ['sahasına giriş', 'general site', 'genel_saha']) {
      const res = await app.request({ method: 'GET', url: `/admin/jobs?q=${encodeURIComponent(q)}`, token: admin.token });
      expect((res.json() as Array<{ job_id: string }>).map((j) => j.job_id), q).toContain(job.job_id);
    }
    const none = await app.request({ method: 'GET', url: '/admin/jobs?q=trafo', token: admin.token });
    expect(none.json()).toEqual([]);
  });

  it('renders in English when asked', async () => {
    const res = await app.request({ method: 'GET', url: `/jobs/${job.job_id}/report.pdf?lang=en`, token: pro.token });
    expect(res.statusCode).toBe(200);
    const { text } = await inspectPdf(dir, 'en', res.rawPayload);
    for (const label of ['PPE analysis report', 'Required equipment', 'Seen worn', 'Not checked', 'General site entry', 'built-in', 'administrator', 'Page 1 of']) expect(text).toContain(label);
  });

  it('refuses a free user with a 403 problem in their language, a stranger with 404, nobody with 401', async () => {
    const stranger = await app.request({ method: 'GET', url: `/jobs/${job.job_id}/report.pdf`, token: free.token });
    expect(stranger.statusCode).toBe(404); // not their job: not even whether it exists
    const own = await submitVideo(app, free.token, video, {}, 'free.mp4');
    expect(own.statusCode).toBe(202);
    const url = `/jobs/${(own.json() as { job_id: string }).job_id}/report.pdf`;
    const tr = await app.request({ method: 'GET', url, token: free.token, headers: { 'accept-language': 'tr' } });
    expect(tr.statusCode).toBe(403);
    expect(tr.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(tr.json().detail).toBe('PDF raporu Pro ve Kurumsal planlarda kullanılabilir.');
    const en = await app.request({ method: 'GET', url, token: free.token, headers: { 'accept-language': 'en' } });
    expect(en.json().detail).toBe('The PDF report is available on the Pro and Enterprise plans.');
    expect((await app.request({ method: 'GET', url: `/jobs/${job.job_id}/report.pdf` })).statusCode).toBe(401);
  });

  it('renders violations with their evidence crops when the result has them, and works when it has none', async () => {
    const crop = await app.request({ method: 'GET', url: `/jobs/${job.job_id}/evidence/0`, token: pro.token });
    expect(crop.statusCode).toBe(200);
    const withViolations = {
      ...job,
      result: {
        ...job.result,
        violations: [
          { group: ['pic1'], group_name: 'Baret', worker: 2, time_sec: 3.2, box: { x: 0.1, y: 0.1, w: 0.3, h: 0.5 }, image_url: `/jobs/${job.job_id}/violations/0` },
          { group: ['pic23'], group_name: 'Yüksek görünürlüklü yelek', worker: 1, time_sec: 65, box: { x: 0.5, y: 0.2, w: 0.2, h: 0.4 }, image_url: `/jobs/${job.job_id}/violations/1` },
          // A worker followed over four frames: one line with the span.
          { group: ['pic1'], group_name: 'Baret', worker: 3, time_sec: 70, end_sec: 82, frames: 4, box: { x: 0.5, y: 0.2, w: 0.2, h: 0.4 }, image_url: `/jobs/${job.job_id}/violations/2` },
        ],
      },
    };
    const asked: string[] = [];
    const pdf = await renderJobReport({
      job: withViolations,
      lang: 'tr',
      now: new Date('2026-01-02T03:04:05Z'),
      image: async (url) => (asked.push(url), url.endsWith('/violations/1') ? null : crop.rawPayload),
    });
    const { text, images } = await inspectPdf(dir, 'violations', pdf);
    expect(text).toContain('İhlaller');
    // Moments in the video as the job page writes them (issue 54): whole seconds cut down, m:ss.
    expect(text).toContain('Baret — 0:03 anında 2. çalışan');
    expect(text).toContain('Yüksek görünürlüklü yelek — 1:05 anında 1. çalışan (görüntü yüklenemedi)');
    expect(text).toContain('Baret — 3. çalışan, 1:10–1:22 arası (4 kare)');
    expect(asked).toEqual(expect.arrayContaining([`/jobs/${job.job_id}/violations/0`, `/jobs/${job.job_id}/violations/1`]));
    // A result without the field (an older job) renders, with no violations section.
    const { violations: _none, ...older } = job.result as Record<string, unknown>;
    const plain = await inspectPdf(dir, 'plain', await renderJobReport({ job: { ...job, result: older } as typeof job, lang: 'tr', now: new Date(), image: async () => crop.rawPayload }));
    expect(plain.text).not.toContain('İhlaller');
    expect(images).toBeGreaterThan(plain.images);
  });
});
