/**
 * `GET /orgs/{id}/reviews/export` (issue 53, docs/adr/0033): an organisation's reviewed findings as
 * a labelled set in the YOLO layout of `../shared/data/ppe-training` — `images/<stem>.jpg`, one
 * `labels/<stem>.txt` each (`class cx cy w h`, normalised), `data.yaml`, `classes.txt`,
 * `sources.csv` and a README naming the classes and the source jobs.
 *
 * - The images are the violations' crops as stored (`jobs/{id}/violations/{n}.jpg`): the evidence
 *   everyone who may see the job sees, faces covered as the organisation's settings had them covered
 *   — never the unblurred copy.
 * - The label is the REVIEWED verdict of the finding the crop is about: a finding without a review
 *   standing is left out, and so is one reviewed `not_a_worker`. Only hard hats and hi-vis vests
 *   (the classes of the training set); other groups are left out.
 * - The box is an estimate, not a drawn box: the worker's box of the evidence frame, placed in the
 *   crop the way the crop was cut (store evidence's `cropWorker`: a quarter of the box's width and
 *   15 % of its height as margin, cut at the frame's edges), then its head or torso by the
 *   analyzer's geometry when it has no keypoints (ppe.ts `headGeometry`'s box fallback,
 *   `torsoBelowHead`). Other workers seen in a crop are not labelled.
 */
import type { Readable } from 'node:stream';
import { jpegSize, type Collection, type ObjectStore } from '@baret/platform';
import { currentReviews, findingKey, groupKeyOf, modelFindings, reviewedVerdict, type FindingReviewedData } from './job/findings.js';
import type { JobDoc } from './readModels/jobs.js';
import { zipStream } from './zipStream.js';

/** The classes, with the ids of the training set's safety-vest-v4-train subset (its README's common mapping). */
export const EXPORT_CLASSES = ['helmet', 'vest', 'no_helmet', 'no_vest'] as const;
/** The catalogue's codes judged on the head (hard hats) and on the torso (hi-vis), as the offline analyzer checks them. */
const HEAD_CODES = new Set(['pic1', 'pic2', 'pic3']);
const TORSO_CODES = new Set(['pic23', 'pic24']);

export interface RelBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The class of a reviewed finding of `group`, or null when the set has none for it. */
export function exportClass(group: readonly string[], verdict: string): number | null {
  const kind = group.some((c) => HEAD_CODES.has(c)) ? 'head' : group.some((c) => TORSO_CODES.has(c)) ? 'torso' : null;
  if (!kind || (verdict !== 'worn' && verdict !== 'missing')) return null;
  if (kind === 'head') return verdict === 'worn' ? 0 : 2;
  return verdict === 'worn' ? 1 : 3;
}

const clamp01 = (v: number): number => Math.min(1, Math.max(0, v));

/**
 * The YOLO line of a worker's head (`cls` 0, 2) or torso (1, 3) in their crop (`size`: its pixels),
 * from the worker's `box` in the frame (0..1). See the top of this file.
 */
export function labelLine(cls: number, box: RelBox, size: { width: number; height: number }): string {
  // The crop in the frame (0..1), as cropWorker cut it.
  const left = Math.max(0, box.x - box.w * 0.25);
  const top = Math.max(0, box.y - box.h * 0.15);
  const cw = Math.min(1 - left, box.w * 1.5);
  const ch = Math.min(1 - top, box.h * 1.3);
  // The worker in the crop's pixels.
  const bx = ((box.x - left) / cw) * size.width;
  const by = ((box.y - top) / ch) * size.height;
  const bw = (box.w / cw) * size.width;
  const bh = (box.h / ch) * size.height;
  const head = Math.min(Math.max(Math.min(bw * 0.4, bh * 0.16), bw * 0.12, bh * 0.05), bw * 0.9);
  const cx = bx + bw / 2;
  const eyeY = by + 0.95 * head;
  const [x0, y0, x1, y1] =
    cls === 0 || cls === 2
      ? [cx - head / 2, by, cx + head / 2, eyeY + 0.75 * head]
      : [Math.max(bx + bw * 0.15, cx - head), eyeY + 1.3 * head, Math.min(bx + bw * 0.85, cx + head), Math.min(by + bh, eyeY + 3.7 * head)];
  const [nx0, ny0, nx1, ny1] = [clamp01(x0 / size.width), clamp01(y0 / size.height), clamp01(x1 / size.width), clamp01(y1 / size.height)];
  const f = (v: number) => v.toFixed(6);
  return `${cls} ${f((nx0 + nx1) / 2)} ${f((ny0 + ny1) / 2)} ${f(nx1 - nx0)} ${f(ny1 - ny0)}`;
}

/** One crop of the set: which violation of which job, and its class. */
export interface ExportSample {
  stem: string;
  job_id: string;
  n: number;
  worker: number;
  group: string;
  model_verdict: string;
  reviewed_verdict: string;
  cls: number;
  box: RelBox;
}

/** The reviewed violations of a job that the set can label (pure). */
export function exportSamples(job: Pick<JobDoc, 'id' | 'result' | 'reviews'>): ExportSample[] {
  if (!job.result || !Array.isArray(job.result.violations)) return [];
  const findings = modelFindings(job.result);
  const standing = new Map(currentReviews(job.reviews ?? []).map((r: FindingReviewedData) => [findingKey(r.worker, r.group), r]));
  const samples: ExportSample[] = [];
  (job.result.violations as Array<{ group?: string[]; worker?: number; box?: RelBox }>).forEach((v, n) => {
    if (!v.group || typeof v.worker !== 'number' || !v.box) return;
    const group = groupKeyOf(v.group);
    const review = standing.get(findingKey(v.worker, group));
    const finding = findings[findingKey(v.worker, group)];
    if (!review || !finding) return;
    const verdict = reviewedVerdict(finding.verdict, review.verdict);
    const cls = exportClass(v.group, verdict);
    if (cls === null) return;
    samples.push({ stem: `${job.id}-${n}`, job_id: job.id, n, worker: v.worker, group, model_verdict: finding.verdict, reviewed_verdict: verdict, cls, box: v.box });
  });
  return samples;
}

/** The set's README (TR and EN) and data.yaml, naming the classes and the source jobs. */
export function describeSet(orgId: string, at: string, jobs: ReadonlyArray<{ id: string; completed_at: string | null; images: number }>): { readme: string; yaml: string } {
  const names = EXPORT_CLASSES.map((c, i) => `${i} ${c}`).join(', ');
  const list = jobs.map((j) => `  - ${j.id} (${j.completed_at ?? '—'}): ${j.images}`).join('\n');
  const readme = `Baret — incelenmiş bulgular, etiketli set / reviewed findings, a labelled set
Kuruluş / organisation: ${orgId}
Dışa aktarma / exported: ${at}

images/<stem>.jpg   ihlal kırpımları, yüzler kanıttaki gibi örtülü / violation crops, faces covered as in the evidence
labels/<stem>.txt   YOLO: sınıf cx cy w h (0..1) / YOLO: class cx cy w h (0..1)
sources.csv         her görüntünün işi, ihlali, işçisi, model ve inceleme kararı / each image's job, violation, worker, model and reviewed verdict

Sınıflar / classes: ${names}
  (baret / hard hat, yelek / hi-vis vest, baretsiz baş / head without a hard hat, yeleksiz gövde / torso without a vest)
Etiket, incelemede verilen karardır; kutu, işçinin kutusundan tahmin edilen baş veya gövdedir (çizilmiş bir kutu değil).
The label is the reviewed verdict; the box is the head or torso estimated from the worker's box (not a drawn box).
Kırpımdaki diğer kişiler etiketsizdir / other people in a crop are not labelled.

Kaynak işler (tamamlanma, görüntü) / source jobs (completed, images):
${list}
`;
  const yaml = `# Baret reviewed findings of organisation ${orgId}, exported ${at}
path: .
train: images
val: images
nc: ${EXPORT_CLASSES.length}
names: [${EXPORT_CLASSES.join(', ')}]
source_jobs: [${jobs.map((j) => j.id).join(', ')}]
`;
  return { readme, yaml };
}

export interface ReviewExportDeps {
  jobs: Collection<JobDoc>;
  objects: ObjectStore;
  log: { warn(obj: object, msg: string): void };
}

/** The organisation's done, reviewed jobs, oldest first, with the samples each gives. */
export async function reviewedSamples(deps: Pick<ReviewExportDeps, 'jobs'>, orgId: string): Promise<Array<{ job: JobDoc; samples: ExportSample[] }>> {
  const jobs = await deps.jobs.find({ where: { org_id: orgId, status: 'done', reviewed: true }, orderBy: [{ field: 'completed_at' }] });
  return jobs.map((job) => ({ job, samples: exportSamples(job) })).filter((j) => j.samples.length > 0);
}

/** Streams the set as a ZIP (one crop in memory at a time); `at`: when it was exported. */
export function writeReviewExport(deps: ReviewExportDeps, orgId: string, sets: Array<{ job: JobDoc; samples: ExportSample[] }>, at: string): Readable {
  const zip = zipStream();
  const { out, add } = zip;
  const text = (s: string) => new TextEncoder().encode(s);
  void (async () => {
    try {
      const rows = ['file,job_id,violation,worker,group,model_verdict,reviewed_verdict,class'];
      const counts: Array<{ id: string; completed_at: string | null; images: number }> = [];
      for (const { job, samples } of sets) {
        let images = 0;
        for (const s of samples) {
          if (zip.failed()) return;
          const key = `jobs/${job.id}/violations/${s.n}.jpg`;
          if (!(await deps.objects.head(key))) continue;
          const chunks: Buffer[] = [];
          for await (const c of await deps.objects.get(key)) chunks.push(c as Buffer);
          const jpeg = Buffer.concat(chunks);
          const size = jpegSize(jpeg);
          if (!size) continue;
          await add(`images/${s.stem}.jpg`, new Uint8Array(jpeg), false);
          await add(`labels/${s.stem}.txt`, text(`${labelLine(s.cls, s.box, size)}\n`), true);
          rows.push([`${s.stem}.jpg`, s.job_id, s.n, s.worker, `"${s.group}"`, s.model_verdict, s.reviewed_verdict, EXPORT_CLASSES[s.cls]].join(','));
          images++;
        }
        if (images > 0) counts.push({ id: job.id, completed_at: job.completed_at, images });
      }
      const { readme, yaml } = describeSet(orgId, at, counts);
      await add('README.txt', text(readme), true);
      await add('data.yaml', text(yaml), true);
      await add('classes.txt', text(`${EXPORT_CLASSES.join('\n')}\n`), true);
      await add('sources.csv', text(`${rows.join('\n')}\n`), true);
      zip.end();
    } catch (err) {
      deps.log.warn({ err, org_id: orgId }, 'the reviews export could not be completed');
      out.destroy(err instanceof Error ? err : new Error(String(err)));
    }
  })();
  return out;
}
