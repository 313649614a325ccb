/**
 * Faces blurred in evidence (issue 30), through HTTP on the embedded run: a clip with visible
 * faces (made by ffmpeg from validation photos in the test, never committed) analysed for an
 * organisation whose managers may see unblurred evidence, so that every stored blurred image can
 * be compared with its unblurred copy. Acceptance: no face the face detector (BlazeFace, at its
 * default score) finds on the unblurred evidence is still found on the stored evidence, nor on the
 * images of the PDF, nor on its pages rendered whole (pdftoppm at 72, 100 and 150 dpi) where a worker's
 * face is drawn; the unblurred copy reaches the organisation's managers only, and goes when they may
 * no longer see it.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { buildComposites } from '../services/analysis/src/engine/composites.js';
import { FACE_DEFAULT_MIN_SCORE, decodeImage, detectFaces, warmUpDetector } from '../services/analysis/src/engine/detector.js';
import { FACE_SURE_SCORE, centreIn, findFaces, sameFace } from '../services/analysis/src/engine/faceBlur.js';
import { cropWorker } from '../services/analysis/src/pipeline.js';
import { parseYoloLabels } from '../scripts/yolo.js';
import { PPE_PHOTOS_DIR, videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { renderJobReport } from '../services/job/src/report/pdf.js';
import { EVIDENCE_HEIGHT, EVIDENCE_WIDTH, evidenceValign } from '../services/job/src/report/violations.js';
import { eventually, startTestApp, type TestApp } from './helpers/app.js';
import { multipart, waitForJob, type JobDetail } from './helpers/jobs.js';

const run = promisify(execFile);
const vest4 = (prefix: string): string => {
  const file = readdirSync(PPE_PHOTOS_DIR).find((f) => f.startsWith(prefix));
  if (!file) throw new Error(`no photo ${prefix} in ${PPE_PHOTOS_DIR}`);
  return join(PPE_PHOTOS_DIR, file);
};

/** The photos of the clip, each shown for SHOT_SECONDS, letterboxed into 640 × 480 (videos.ts). */
const SHOTS = ['valid__02569', 'valid__img_22', 'valid__00988', 'valid__02122'];
const SHOT_SECONDS = 1.5;

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let app: TestApp;
let dir: string;
let manager: { token: string; id: string };
let member: { token: string; id: string };
let admin: { token: string; id: string };
let orgId: string;
let job: JobDetail;
/** Every version of an image of the job the object store was given (its unblurred copies aside), by key, in order. */
const given = new Map<string, Buffer[]>();
/** How often a reader found each image in the store while the job ran (read right after each of the job's puts). */
const readWhileRunning = new Map<string, number>();
/** The reader's reads after the job ended (one more sweep). */
let readAfterEnd = 0;
/** What a reader of the store found that the store was never given, or could not read: none, or the store changed behind the test's back. */
const strangers: string[] = [];
/** The labelled heads in pixels of a stored image (its key). */
let headsOf: (key: string) => Promise<Box[]>;
/** Where the unblurred copy of a stored image is. */
const unblurredKey = (key: string): string => key.replace(`jobs/${job.job_id}/`, `jobs/${job.job_id}/unblurred/`);
/** The stored image a PDF embeds (byte for byte). */
let keyOf: (image: Buffer) => Promise<string>;

type Box = [number, number, number, number];
const faces = async (image: Buffer): Promise<Box[]> => (await detectFaces(image)).faces.map((f) => f.box);
const bytesOf = async (body: AsyncIterable<unknown>): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};
const read = async (key: string): Promise<Buffer> => bytesOf(await app.infra.objects.get(key));
/** An image of the job as the evidence shows it (not its unblurred copy). */
const isEvidenceImage = (key: string): boolean => key.startsWith('jobs/') && key.endsWith('.jpg') && !key.includes('/unblurred/');

/**
 * Reads every image of the job the store holds, each checked against what the store was given for
 * its key: a version never put there (nor one that cannot be read) is a stranger.
 */
const sweep = async (count: (key: string) => void): Promise<void> => {
  for (const key of (await app.infra.objects.list('jobs/')).filter(isEvidenceImage)) {
    const bytes = await read(key).catch((err: unknown) => (strangers.push(`${key}: could not be read (${String(err)})`), undefined));
    if (!bytes) continue;
    if (!(given.get(key) ?? []).some((v) => v.equals(bytes))) strangers.push(`${key}: a version the store was never given`);
    count(key);
  }
};

/**
 * The worker's object store (the app's own: the composition root hands it to the analysis service)
 * records each image of the job before it reaches the store, then a reader sweeps the store. Driven
 * by the job's own writes, not a timer: every version ever stored is checked, and every image is read
 * while the job runs however busy the machine is. A poll every 25 ms saw only what was there when it
 * looked: a version replaced between two polls escaped it, and on a busy machine so did a crop
 * written after its last one ('violations/4.jpg was seen while the job ran').
 */
const recordPuts = (): void => {
  const objects = app.infra.objects;
  const put = objects.put.bind(objects);
  objects.put = async (key, body, options) => {
    if (!isEvidenceImage(key)) return put(key, body, options);
    const bytes = Buffer.isBuffer(body) ? body : await bytesOf(body);
    given.set(key, [...(given.get(key) ?? []), bytes]);
    const info = await put(key, bytes, options);
    await sweep((k) => readWhileRunning.set(k, (readWhileRunning.get(k) ?? 0) + 1));
    return info;
  };
};

/**
 * A worker's face (issue 39: faces of people are covered, not the scene): a face BlazeFace finds at
 * its default score whose centre lies in a head the photo's labels mark (people's heads, labelled by
 * hand, placed where the image shows them), or one it is sure of anywhere. What it finds on a hand,
 * a vest or a timecode is no one's face.
 */
const labelledHeads = async (prefix: string): Promise<Box[]> => {
  const image = vest4(prefix);
  const { width, height } = await sharp(image).metadata();
  const text = await readFile(image.replace(/[\\/]images[\\/]([^\\/]+)\.jpg$/, '/labels/$1.txt'), 'utf8');
  const s = Math.min(640 / width!, 480 / height!);
  const ox = Math.floor((640 - Math.round(width! * s)) / 2);
  const oy = Math.floor((480 - Math.round(height! * s)) / 2);
  // Classes 0 (hard hat) and 2 (bare head) are heads; a tenth of margin each side (hand-drawn boxes are tight).
  return parseYoloLabels(text)
    .filter((o) => o.cls === 0 || o.cls === 2)
    .map(({ box: [x, y, w, h] }) => [ox + (x - 0.1 * w) * width! * s, oy + (y - 0.1 * h) * height! * s, 1.2 * w * width! * s, 1.2 * h * height! * s]);
};
const workerFaces = async (image: Buffer, heads: Box[]): Promise<Box[]> =>
  (await detectFaces(image)).faces.filter((f) => f.score >= FACE_SURE_SCORE || centreIn(f.box, heads)).map((f) => f.box);

beforeAll(async () => {
  fx = await videoFixtures();
  dir = await mkdtemp(join(tmpdir(), 'baret-faces-'));
  // Workers whose faces BlazeFace finds in the photos: in a hard hat, bare-headed, a crew of four.
  const video = await fx.slideshow(
    'faces.mp4',
    SHOTS.map((prefix) => ({ photo: vest4(prefix), seconds: SHOT_SECONDS })),
  );
  await warmUpDetector();
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test' }, { realClock: true });
  admin = await app.signUp('admin@baret.test');
  manager = await app.signUp('manager@example.com');
  member = await app.signUp('member@example.com');
  await app.request({ method: 'PATCH', url: `/admin/users/${manager.id}/quota`, token: admin.token, payload: { plan_name: 'pro' } });
  orgId = (((await app.request({ method: 'POST', url: '/orgs', token: manager.token, payload: { name: 'Boğaziçi Elektrik' } })).json()) as { id: string }).id;
  // A member's features come from the organisation's plan (issue 37): the PDF report needs it on Pro.
  expect((await app.request({ method: 'PATCH', url: `/admin/orgs/${orgId}/quota`, token: admin.token, payload: { plan_name: 'pro' } })).statusCode).toBe(200);
  const invite = (await app.request({ method: 'POST', url: `/orgs/${orgId}/invites`, token: manager.token, payload: { email: 'member@example.com', role: 'member' } })).json() as { token: string };
  expect((await app.request({ method: 'POST', url: `/invites/${invite.token}/accept`, token: member.token })).statusCode).toBe(200);

  // The settings: defaults first, then the managers may see unblurred evidence.
  const initial = await app.request({ method: 'GET', url: `/orgs/${orgId}/settings`, token: member.token });
  expect(initial.json()).toEqual({ blur_third_party: true, managers_see_unblurred: false, time_zone: 'Europe/Istanbul' });
  const changed = await app.request({ method: 'PATCH', url: `/orgs/${orgId}/settings`, token: manager.token, payload: { managers_see_unblurred: true } });
  expect(changed.statusCode, changed.body).toBe(200);
  expect(changed.json()).toEqual({ blur_third_party: true, managers_see_unblurred: true, time_zone: 'Europe/Istanbul' });
  // The analysis service follows the setting from the organisation's events.
  await eventually(async () => ((await app.infra.documents.collection('analysis_org_privacy').get(orgId))?.managers_see_unblurred === true ? true : undefined), 30_000);

  const body = await multipart(
    { payload: JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 2, frames_per_composite: 2 }) },
    { name: 'direk.mp4', type: 'video/mp4', data: await readFile(video) },
  );
  // While the job runs, the object store is read right after each image is put there (issue 39:
  // none reaches storage before its faces are covered), and once more after the job ended.
  recordPuts();
  const res = await app.request({ method: 'POST', url: '/analyze', token: member.token, headers: body.headers, payload: body.payload });
  expect(res.statusCode, res.body).toBe(202);
  job = await waitForJob(app, member.token, (res.json() as { job_id: string }).job_id, ['done', 'error', 'cancelled'], 300_000);
  await sweep(() => readAfterEnd++);
  expect(job.status).toBe('done');

  // Where the labelled heads are in each stored image: a frame shows the photo on screen at its time;
  // a composite, its frames in their cells (made again of the unblurred frames, as the job made
  // it); a violation's crop, its frame cut as the job cut it.
  const times = job.logs.find((l) => l.event === 'frames_sampled')!.data!.times_sec as number[];
  const plainFrames = await Promise.all(
    times.map(async (timeSec, index) => {
      const jpeg = await read(`jobs/${job.job_id}/unblurred/frames/${String(index).padStart(3, '0')}.jpg`);
      const { width, height } = await sharp(jpeg).metadata();
      expect([width, height]).toEqual([640, 480]);
      return { index, timeSec, width: 640, height: 480, jpeg };
    }),
  );
  const frameHeads = (i: number) => labelledHeads(SHOTS[Math.min(SHOTS.length - 1, Math.floor(times[i]! / SHOT_SECONDS))]!);
  const remade = await buildComposites(plainFrames, { targetComposites: 2, framesPerComposite: 2 });
  const violations = (job as unknown as { result: { violations: Array<{ time_sec: number; box: { x: number; y: number; w: number; h: number } }> } }).result.violations;
  headsOf = async (key) => {
    const [, kind, n, whole] = /\/(frames|composites|violations)\/(\d+)(-frame)?\.jpg$/.exec(key) ?? [];
    if (kind === 'frames') return frameHeads(Number(n));
    if (kind === 'composites') {
      const cells = remade[Number(n)]!.cells;
      const placed = await Promise.all(cells.map(async (c) => (await frameHeads(c.frameIndex)).map(([x, y, w, h]): Box => [c.x + (x * c.width) / 640, c.y + (y * c.height) / 480, (w * c.width) / 640, (h * c.height) / 480])));
      return placed.flat();
    }
    if (kind === 'violations') {
      const v = violations[Number(n)]!;
      const i = times.reduce((best, t, j) => (Math.abs(t - v.time_sec) < Math.abs(times[best]! - v.time_sec) ? j : best), 0);
      // The whole frame a violation offers (issue 53): the frame's heads, at the stored frame's size.
      if (whole) {
        const scale = ((await sharp(await read(key)).metadata()).width ?? 640) / 640;
        return (await frameHeads(i)).map(([x, y, w, h]): Box => [x * scale, y * scale, w * scale, h * scale]);
      }
      const cut = await cropWorker(plainFrames[i]!.jpeg, v.box);
      return (await frameHeads(i)).map(([x, y, w, h]): Box => [(x - cut.left) * cut.scale, (y - cut.top) * cut.scale, w * cut.scale, h * cut.scale]);
    }
    throw new Error(`no heads for ${key}`);
  };
  keyOf = async (image) => {
    const stored = (await app.infra.objects.list(`jobs/${job.job_id}/`)).filter((k) => k.endsWith('.jpg') && !k.includes('/unblurred/'));
    for (const key of stored) if ((await read(key)).equals(image)) return key;
    throw new Error('an image of the PDF that is no stored image');
  };
}, 420_000);

afterAll(async () => {
  await app?.close();
  await fx?.dispose();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('faces blurred in evidence (issue 30)', () => {
  it('a member cannot change the settings; a manager can, and a wrong value is refused', async () => {
    const res = await app.request({ method: 'PATCH', url: `/orgs/${orgId}/settings`, token: member.token, payload: { blur_third_party: false } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'forbidden' });
    const bad = await app.request({ method: 'PATCH', url: `/orgs/${orgId}/settings`, token: manager.token, payload: { blur_third_party: 'no' } });
    expect(bad.statusCode).toBe(400);
    const stranger = await app.signUp('stranger@example.com');
    expect((await app.request({ method: 'GET', url: `/orgs/${orgId}/settings`, token: stranger.token })).statusCode).toBe(404);
  });

  it('stores frames, composites and crops with no face the detector still finds, where the unblurred copy has faces', async () => {
    const stored = (await app.infra.objects.list(`jobs/${job.job_id}/`)).filter((k) => k.endsWith('.jpg') && !k.includes('/unblurred/'));
    expect(stored.some((k) => k.includes('/frames/'))).toBe(true);
    expect(stored.some((k) => k.includes('/composites/'))).toBe(true);
    let facesBefore = 0;
    for (const key of stored) {
      const plainKey = unblurredKey(key);
      const plain = await workerFaces(await read(plainKey), await headsOf(key));
      facesBefore += plain.length;
      const left = (await faces(await read(key))).filter((f) => sameFace(f, plain));
      expect(left, `${key}: faces still found where the unblurred copy has them`).toEqual([]);
    }
    // The clip shows faces: the check above compared against real ones.
    expect(facesBefore).toBeGreaterThan(4);
  }, 300_000);

  it('never stores an image before its faces are covered: every version the store was given is covered, and a reader of the store, while the job ran and after, found no other', async () => {
    const stored = (await app.infra.objects.list(`jobs/${job.job_id}/`)).filter(isEvidenceImage);
    expect(stored.length).toBeGreaterThan(4);
    // Every image went through the recorded store: the check below saw each version of each.
    expect([...given.keys()].sort()).toEqual(stored);
    expect(strangers).toEqual([]);
    // Each read while the job ran, right after it was put, and once more after the end.
    expect(stored.filter((k) => !readWhileRunning.has(k)), 'never read while the job ran').toEqual([]);
    expect(readAfterEnd).toBe(stored.length);
    let facesBefore = 0;
    for (const key of stored) {
      const versions = given.get(key)!;
      // Written once: no uncovered version came before the one stored.
      expect(versions.length, `${key}: versions put`).toBe(1);
      expect(versions[0]!.equals(await read(key)), `${key}: the version put is the one stored`).toBe(true);
      const plain = await workerFaces(await read(unblurredKey(key)), await headsOf(key));
      facesBefore += plain.length;
      expect((await faces(versions[0]!)).filter((f) => sameFace(f, plain)), key).toEqual([]);
    }
    expect(facesBefore).toBeGreaterThan(4);
  }, 300_000);

  it('renders the PDF from the blurred evidence: no image in it has a face the detector finds in the same image of a PDF made of the unblurred copy', async () => {
    const res = await app.request({ method: 'GET', url: `/jobs/${job.job_id}/report.pdf?lang=en`, token: manager.token });
    expect(res.statusCode, res.body).toBe(200);
    // The same report made of the unblurred images, for comparison (what the PDF would be without the blur).
    const detail = (await app.request({ method: 'GET', url: `/jobs/${job.job_id}`, token: manager.token })).json() as Record<string, unknown>;
    const unblurredPdf = await renderJobReport({
      job: detail as never,
      lang: 'en',
      now: new Date(),
      image: async (url) => {
        const r = await app.request({ method: 'GET', url: `${url}?unblurred=true`, token: manager.token });
        return r.statusCode === 200 ? r.rawPayload : null;
      },
    });
    /** The images embedded in a PDF, in page order, as files (`pdfimages -j`: JPEGs as embedded). */
    const images = async (name: string, pdf: Buffer): Promise<string[]> => {
      await writeFile(join(dir, `${name}.pdf`), pdf);
      await run('pdfimages', ['-j', join(dir, `${name}.pdf`), join(dir, name)]);
      return (await readdir(dir)).filter((f) => f.startsWith(`${name}-`)).sort().map((f) => join(dir, f));
    };
    const blurredImages = await images('blurred', res.rawPayload);
    const plainImages = await images('plain', unblurredPdf);
    expect(blurredImages.length).toBeGreaterThan(0);
    expect(blurredImages.length).toBe(plainImages.length);
    let facesBefore = 0;
    for (const [i, image] of blurredImages.entries()) {
      const plain = await workerFaces(await readFile(plainImages[i]!), await headsOf(await keyOf(await readFile(image))));
      facesBefore += plain.length;
      expect((await faces(await readFile(image))).filter((f) => sameFace(f, plain)), `image ${i + 1}`).toEqual([]);
    }
    expect(facesBefore).toBeGreaterThan(0);
  }, 300_000);

  it('renders every PDF page with no face the detector finds where a worker’s face is, at 72, 100 and 150 dpi, on the whole page and on its tiles', async () => {
    const res = await app.request({ method: 'GET', url: `/jobs/${job.job_id}/report.pdf?lang=tr`, token: manager.token });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = join(dir, 'report.pdf');
    await writeFile(pdf, res.rawPayload);
    // Where each image is drawn (pdftohtml's XML, in its units: 1.5 per point) and the image as embedded, in the same order.
    // A place may be negative: a crop drawn centred on its evidence window near the top of a page starts above the page.
    const xml = (await run('pdftohtml', ['-xml', '-stdout', '-q', pdf, join(dir, 'html')], { maxBuffer: 16 << 20 })).stdout;
    const placed: Array<{ page: number; rect: Box }> = [];
    const num = '(-?[\\d.]+)';
    for (const pageXml of xml.split('<page ').slice(1)) {
      const page = Number(/number="(\d+)"/.exec(pageXml)![1]);
      for (const m of pageXml.matchAll(new RegExp(`<image top="${num}" left="${num}" width="${num}" height="${num}"`, 'g'))) {
        placed.push({ page, rect: [Number(m[2]) / 1.5, Number(m[1]) / 1.5, Number(m[3]) / 1.5, Number(m[4]) / 1.5] });
      }
    }
    await run('pdfimages', ['-j', pdf, join(dir, 'report')]);
    const embedded = (await readdir(dir)).filter((f) => /^report-\d+\.jpg$/.test(f)).sort();
    expect(placed.length).toBe(embedded.length);
    const groups = (job as unknown as { result: { violations: Array<{ group: string[] }> } }).result.violations.map((v) => v.group);
    /**
     * What of a placed image a reader sees. pdftohtml gives the whole image as scaled (a violation's
     * crop covers its evidence window, issue 53), not the clip: the window is EVIDENCE_WIDTH ×
     * EVIDENCE_HEIGHT, centred across the image, at its top for a hard hat and across its middle
     * otherwise (violations.ts drawEvidence). Other images are drawn whole.
     */
    const visible = (key: string, [x, y, w, h]: Box): Box => {
      const n = /\/violations\/(\d+)\.jpg$/.exec(key)?.[1];
      if (n === undefined) return [x, y, w, h];
      const top = evidenceValign(groups[Number(n)]!) === 'top' ? y : y + (h - EVIDENCE_HEIGHT) / 2;
      return [x + (w - EVIDENCE_WIDTH) / 2, top, EVIDENCE_WIDTH, EVIDENCE_HEIGHT];
    };
    const meets = (a: Box, b: Box): boolean => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
    // The workers' faces: what the detector finds on the unblurred copy of each embedded image, placed
    // on its page (in points) — each face any part of which shows in the window, whole (stricter than its visible part).
    const realFaces: Array<{ page: number; box: Box }> = [];
    let hidden = 0;
    for (const [i, file] of embedded.entries()) {
      const { rect, page } = placed[i]!;
      const key = await keyOf(await readFile(join(dir, file)));
      const window = visible(key, rect);
      const plain = await read(unblurredKey(key));
      const { width, height } = await sharp(plain).metadata();
      for (const box of await workerFaces(plain, await headsOf(key))) {
        const sx = rect[2] / width!;
        const sy = rect[3] / height!;
        const onPage: Box = [rect[0] + box[0] * sx, rect[1] + box[1] * sy, box[2] * sx, box[3] * sy];
        if (meets(onPage, window)) realFaces.push({ page, box: onPage });
        else hidden++;
      }
    }
    if (hidden > 0) console.info(`${hidden} worker faces lie outside their evidence window (not drawn)`);
    expect(realFaces.length).toBeGreaterThanOrEqual(2);
    let pages = 0;
    const left: string[] = [];
    for (const dpi of [72, 100, 150]) {
      await run('pdftoppm', ['-r', String(dpi), '-png', pdf, join(dir, `page-${dpi}`)]);
      const files = (await readdir(dir)).filter((f) => f.startsWith(`page-${dpi}-`)).sort();
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        pages++;
        const page = Number(/-(\d+)\.png$/.exec(file)![1]);
        const here = realFaces.filter((r) => r.page === page).map((r) => r.box.map((v) => (v * dpi) / 72) as Box);
        const img = (await decodeImage(await readFile(join(dir, file)), Number.MAX_SAFE_INTEGER)).work;
        // The whole page at the detector's default score, and its tiles as the blur searches them.
        for (const f of await findFaces(img, FACE_DEFAULT_MIN_SCORE)) {
          if (sameFace(f.box, here)) left.push(`${file}: ${f.box.map(Math.round).join(',')} score ${f.score.toFixed(2)}`);
        }
      }
    }
    if (process.env.BARET_FACES_KEEP) await cp(dir, process.env.BARET_FACES_KEEP, { recursive: true });
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(left, 'faces found on a rendered page where a worker’s face is').toEqual([]);
  }, 600_000);

  it('gives the unblurred copy to the organisation’s managers only', async () => {
    const url = `/jobs/${job.job_id}/evidence/0?unblurred=true`;
    expect((await app.request({ method: 'GET', url, token: manager.token })).statusCode).toBe(200);
    const owner = await app.request({ method: 'GET', url, token: member.token });
    expect(owner.statusCode).toBe(403);
    expect(owner.json()).toMatchObject({ code: 'forbidden', detail: 'Only the managers of the organisation can see unblurred evidence.' });
    expect((await app.request({ method: 'GET', url, token: admin.token })).statusCode).toBe(403);
    // Everyone who may see the job sees the blurred evidence.
    for (const who of [manager, member, admin]) expect((await app.request({ method: 'GET', url: `/jobs/${job.job_id}/evidence/0`, token: who.token })).statusCode).toBe(200);
  });

  it('deletes the unblurred copies once the managers may no longer see them', async () => {
    const res = await app.request({ method: 'PATCH', url: `/orgs/${orgId}/settings`, token: manager.token, payload: { managers_see_unblurred: false } });
    expect(res.json()).toEqual({ blur_third_party: true, managers_see_unblurred: false, time_zone: 'Europe/Istanbul' });
    await eventually(async () => ((await app.infra.objects.list(`jobs/${job.job_id}/unblurred/`)).length === 0 ? true : undefined), 30_000);
    expect((await app.request({ method: 'GET', url: `/jobs/${job.job_id}/evidence/0?unblurred=true`, token: manager.token })).statusCode).toBe(404);
    // The blurred evidence stays.
    expect((await app.request({ method: 'GET', url: `/jobs/${job.job_id}/evidence/0`, token: manager.token })).statusCode).toBe(200);
  }, 60_000);
});
