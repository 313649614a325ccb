/**
 * Measures the offline analyzer on the labelled PPE photographs (`../shared/data/ppe-photos`, see
 * its README; never trained on). Each photo goes through the code path of a job's frame
 * (scripts/eval/measure.ts: JPEG → RGB → `analyzePpeRaw`, the detector and PPE judge of
 * `OfflineAnalyzer`), once with the earlier colour thresholds ("before") and once with the learned
 * classifier ("after"). Image-level precision and recall for hard hat worn / not worn and hi-vis
 * worn / not worn, per data set and overall, against the targets of issue 11; then the cost of the
 * classifier per worker crop.
 *
 * Run alone with `npx tsx bench/analyzer.ts`, or through `npm run bench`.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { sharedDataDir } from '@baret/platform';
import { detectPersonsRaw, warmUpDetector, type RawImage } from '../services/analysis/src/engine/detector.js';
import { analyzePersons, analyzePersonsByColour, type PpeJudge } from '../services/analysis/src/engine/ppe.js';
import { listTrainingPhotos, SUBSETS } from '../scripts/train/data.js';
import { sizeOf } from '../scripts/train/detect.js';
import { formatTable, formatWorkerTable, labelTextFor, MEASURES, measureFolder, measurePhotos, readRelabel, tally, tallyWorkers, type ClassIds, type ImageOutcome, type Judge, type MeasureFigures, type MeasureName } from '../scripts/eval/measure.js';

export const PHOTOS_DIR = process.env.BARET_PPE_PHOTOS ?? sharedDataDir('ppe-photos');

/** Label classes per data set (ppe-photos README). safety-gear-test's "apron" is its hi-vis vest. */
export const DATASETS: Record<string, Required<Omit<ClassIds, 'otherHeadgear'>>> = {
  'safety-vest-v4': { helmet: 0, bareHead: [2], vest: 1, noVest: 3 },
  'safety-gear-test': { helmet: 0, bareHead: [3], vest: 1, noVest: 4 },
};

/** Label corrections per data set (the hi-vis rule of issue 26; listed in the model card). */
const RELABEL: Record<string, string> = {
  'safety-vest-v4': fileURLToPath(new URL('../scripts/eval/relabel-safety-vest-v4.json', import.meta.url)),
};

/** Issue 11's targets: precision and recall floors. */
export const TARGETS: Record<MeasureName, { precision: number; recall: number }> = {
  'hard hat worn': { precision: 0.9, recall: 0.9 },
  'hard hat not worn': { precision: 0.85, recall: 0.8 },
  'hi-vis worn': { precision: 0.9, recall: 0.9 },
  'hi-vis not worn': { precision: 0.85, recall: 0.85 },
};

export interface JudgeResult {
  judge: Judge;
  images: Array<ImageOutcome & { dataset: string }>;
  byDataset: Record<string, Partial<Record<MeasureName, MeasureFigures>>>;
  msPerImage: number;
}

/** Runs the labelled photos of the given data sets through the analyzer with one judge. */
export async function measureAnalyzer(judge: Judge = 'learned', datasets = Object.keys(DATASETS), photosDir = PHOTOS_DIR, limit?: number): Promise<JudgeResult> {
  await warmUpDetector();
  const images: JudgeResult['images'] = [];
  const byDataset: JudgeResult['byDataset'] = {};
  for (const dataset of datasets) {
    const classes = DATASETS[dataset];
    if (!classes) throw new Error(`unknown data set ${dataset}`);
    const dir = path.join(photosDir, dataset);
    const relabel = RELABEL[dataset] ? await readRelabel(RELABEL[dataset]) : undefined;
    const r = await measureFolder({ imagesDir: path.join(dir, 'images'), labelsDir: path.join(dir, 'labels'), classes, judge, limit, relabel });
    byDataset[dataset] = r.measures;
    images.push(...r.images.map((i) => ({ ...i, dataset })));
  }
  byDataset.all = tally(images, [...MEASURES]);
  return { judge, images, byDataset, msPerImage: images.reduce((s, i) => s + i.ms, 0) / Math.max(1, images.length) };
}

/**
 * The same image-level measures on the hold-out fold of the training photos (15 % by name hash,
 * never trained on, used only to pick the thresholds): a second unseen set on which neither judge
 * was calibrated (the colour thresholds were calibrated on ppe-photos).
 */
export async function measureTrainingHoldout(judge: Judge): Promise<Awaited<ReturnType<typeof measurePhotos>>> {
  await warmUpDetector();
  const photos = (await listTrainingPhotos(sizeOf)).filter((p) => p.fold === 'holdout');
  const labelled = [];
  for (const p of photos) {
    const c = SUBSETS[p.subset]!;
    const labelText = await labelTextFor(path.join(path.dirname(path.dirname(p.imagePath)), 'labels'), p.file);
    labelled.push({ image: p.imagePath, labelText, classes: { helmet: c.helmet, bareHead: c.other === null ? [c.bare] : [c.bare, c.other], vest: c.vest ?? undefined, noVest: c.noVest ?? undefined } });
  }
  return measurePhotos(labelled, judge);
}

/** Whether the figures meet a target (n/a counts as not met). */
export function meets(f: MeasureFigures | undefined, m: MeasureName): boolean {
  return !!f && f.precision !== null && f.recall !== null && f.precision >= TARGETS[m].precision && f.recall >= TARGETS[m].recall;
}

async function rawOf(file: string): Promise<RawImage> {
  const { data, info } = await sharp(await readFile(file)).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/** Milliseconds per worker of each judge alone (detections made once, then judged 5 times). */
export async function msPerWorker(photosDir = PHOTOS_DIR, count = 30): Promise<{ workers: number; learned: number; colour: number }> {
  const dir = path.join(photosDir, 'safety-vest-v4', 'images');
  const files = (await readdir(dir)).sort().slice(0, count);
  const frames: Array<{ img: RawImage; persons: Awaited<ReturnType<typeof detectPersonsRaw>> }> = [];
  for (const f of files) {
    const img = await rawOf(path.join(dir, f));
    frames.push({ img, persons: await detectPersonsRaw(img) });
  }
  const workers = frames.reduce((s, f) => s + f.persons.length, 0);
  const time = async (judge: PpeJudge): Promise<number> => {
    const started = performance.now();
    for (let r = 0; r < 5; r++) for (const f of frames) await judge(f.img, f.persons);
    return (performance.now() - started) / (5 * Math.max(1, workers));
  };
  await time(analyzePersons);
  return { workers, learned: await time(analyzePersons), colour: await time(analyzePersonsByColour) };
}

function pct(v: number | null | undefined): string {
  return v === null || v === undefined ? '  n/a' : `${(100 * v).toFixed(0).padStart(4)}%`;
}

/** Prints before/after figures for every data set and measure (used by `npm run bench`). */
export async function runAnalyzerBench(): Promise<{ before: JudgeResult; after: JudgeResult }> {
  const { initMs } = await warmUpDetector();
  console.log('\n## Offline analyzer on labelled photos: colour thresholds (before) vs learned classifier (after)');
  console.log(`photos: ${PHOTOS_DIR} (validation set, never trained on); detector init ${initMs.toFixed(0)} ms`);
  const before = await measureAnalyzer('colour');
  const after = await measureAnalyzer('learned');
  for (const dataset of [...Object.keys(DATASETS), 'all']) {
    console.log(`\n${formatTable(after.byDataset[dataset]!, `${dataset} (after)`)}`);
  }
  console.log(`\n${'measure'.padEnd(20)} ${'target P/R'.padEnd(11)} ${'before P / R'.padEnd(14)} ${'after P / R'.padEnd(14)} met (after, all photos)`);
  for (const m of MEASURES) {
    const b = before.byDataset.all![m];
    const a = after.byDataset.all![m];
    const t = TARGETS[m];
    console.log(`${m.padEnd(20)} ${`${t.precision}/${t.recall}`.padEnd(11)} ${pct(b?.precision)} /${pct(b?.recall)}  ${pct(a?.precision)} /${pct(a?.recall)}  ${meets(a, m) ? 'yes' : 'NO'}`);
  }
  console.log(`time per image (detector + judge): before ${before.msPerImage.toFixed(0)} ms, after ${after.msPerImage.toFixed(0)} ms`);
  console.log(`\n${formatWorkerTable(tallyWorkers(after.images), 'all photos, per worker (after)')}`);
  const holdBefore = await measureTrainingHoldout('colour');
  const holdAfter = await measureTrainingHoldout('learned');
  console.log(`\ntraining hold-out fold (${holdAfter.images.length} photos of ppe-training, never trained on; hi-vis only where labelled):`);
  console.log(`${'measure'.padEnd(20)} ${'before P / R'.padEnd(14)} ${'after P / R'.padEnd(14)}`);
  for (const m of MEASURES) {
    const b = holdBefore.measures[m];
    const a = holdAfter.measures[m];
    console.log(`${m.padEnd(20)} ${pct(b?.precision)} /${pct(b?.recall)}  ${pct(a?.precision)} /${pct(a?.recall)}`);
  }
  console.log(`${formatWorkerTable(holdAfter.workers, 'training hold-out fold, per worker (after)')}`);
  const w = await msPerWorker();
  console.log(`judge alone per worker crop (${w.workers} workers): learned ${w.learned.toFixed(2)} ms, colour ${w.colour.toFixed(2)} ms`);
  return { before, after };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runAnalyzerBench();
}
