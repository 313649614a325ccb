/**
 * Measures the offline analyzer on the labelled PPE photographs (`../shared/data/ppe-photos`,
 * see its README). Each image goes through the same code path as a job: it becomes a one-cell
 * `Composite` and `OfflineAnalyzer.analyzeComposite` judges it. Image-level truth from the YOLO
 * labels: "hard hat seen" = a helmet box, "bare head seen" = a no_helmet box, "vest seen" = a vest
 * box (safety-vest-v4 class 1, safety-gear-test class 1 apron).
 *
 * Run alone with `npx tsx bench/analyzer.ts`, or through `npm run bench`.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { sharedDataDir } from '@baret/platform';
import { warmUpDetector } from '../services/analysis/src/engine/detector.js';
import { OfflineAnalyzer } from '../services/analysis/src/engine/offlineAnalyzer.js';
import type { Composite } from '../services/analysis/src/engine/types.js';

export const PHOTOS_DIR = process.env.BARET_PPE_PHOTOS ?? sharedDataDir('ppe-photos');

/** Label classes per data set: which YOLO class ids mean helmet, bare head, vest. */
const DATASETS: Record<string, { helmet: number; bare: number; vest: number }> = {
  'safety-vest-v4': { helmet: 0, bare: 2, vest: 1 },
  'safety-gear-test': { helmet: 0, bare: 3, vest: 1 },
};

const HAT = 'bench-hard-hat';
const VEST = 'bench-hi-vis';
const OTHER = 'bench-gloves';

type Measure = 'hard hat seen' | 'bare head seen' | 'vest seen' | 'hard hat missing (product rule)';
const MEASURES: Measure[] = ['hard hat seen', 'bare head seen', 'vest seen', 'hard hat missing (product rule)'];

interface Counts {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}

/** One image's truth and prediction. */
export interface ImageOutcome {
  dataset: string;
  file: string;
  truth: Record<Measure, boolean>;
  predicted: Record<Measure, boolean>;
  persons: number;
  ms: number;
}

/** Precision and recall per measure, per data set and overall. */
export interface AnalyzerBenchResult {
  initMs: number;
  images: ImageOutcome[];
  table: Array<{ dataset: string; measure: Measure; precision: number; recall: number } & Counts>;
  msPerImage: { mean: number; p50: number; p95: number };
}

function truthOf(labels: string, cls: { helmet: number; bare: number; vest: number }): Record<Measure, boolean> {
  const ids = new Set(
    labels
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map((l) => Number(l.split(/\s+/)[0])),
  );
  return {
    'hard hat seen': ids.has(cls.helmet),
    'bare head seen': ids.has(cls.bare),
    'vest seen': ids.has(cls.vest),
    // The product marks the hard hat missing only when a bare head and no hat is seen.
    'hard hat missing (product rule)': ids.has(cls.bare) && !ids.has(cls.helmet),
  };
}

/** Builds the one-cell composite a job would hand to the analyzer for this photograph. */
async function oneCellComposite(file: string): Promise<Composite> {
  const { data, info } = await sharp(await readFile(file)).rotate().jpeg({ quality: 90 }).toBuffer({ resolveWithObject: true });
  return {
    index: 0,
    jpeg: data,
    width: info.width,
    height: info.height,
    cells: [{ frameIndex: 0, timeSec: 0, x: 0, y: 0, width: info.width, height: info.height }],
  };
}

function ratio(a: number, b: number): number {
  return b === 0 ? Number.NaN : a / b;
}

/** Runs every labelled image through the offline analyzer and scores it. */
export async function measureAnalyzer(photosDir = PHOTOS_DIR, datasets = Object.keys(DATASETS), limit = Infinity): Promise<AnalyzerBenchResult> {
  const { initMs } = await warmUpDetector();
  const analyzer = new OfflineAnalyzer({ hardHatCodes: [HAT], hiVisCodes: [VEST], fallbackTaskSlug: 'bench' });
  const equipment = [HAT, VEST, OTHER].map((code) => ({ code, title: code }));
  const images: ImageOutcome[] = [];
  for (const dataset of datasets) {
    const cls = DATASETS[dataset];
    if (!cls) throw new Error(`unknown data set ${dataset}`);
    const dir = path.join(photosDir, dataset);
    const files = (await readdir(path.join(dir, 'images'))).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort().slice(0, limit);
    for (const file of files) {
      const labels = await readFile(path.join(dir, 'labels', file.replace(/\.[^.]+$/, '.txt')), 'utf8').catch(() => '');
      const composite = await oneCellComposite(path.join(dir, 'images', file));
      const started = performance.now();
      const analysis = await analyzer.analyzeComposite(composite, { equipment });
      const ms = performance.now() - started;
      const seen = new Set(analysis.seen.map((s) => s.code));
      images.push({
        dataset,
        file,
        truth: truthOf(labels, cls),
        predicted: {
          'hard hat seen': seen.has(HAT),
          'bare head seen': analysis.findings.some((f) => f.hardHat === 'bare'),
          'vest seen': seen.has(VEST),
          'hard hat missing (product rule)': analysis.missing.includes(HAT),
        },
        persons: analysis.persons ?? 0,
        ms,
      });
    }
  }
  const table: AnalyzerBenchResult['table'] = [];
  for (const dataset of [...datasets, 'all']) {
    const subset = images.filter((i) => dataset === 'all' || i.dataset === dataset);
    for (const measure of MEASURES) {
      const c: Counts = { tp: 0, fp: 0, fn: 0, tn: 0 };
      for (const i of subset) {
        const t = i.truth[measure];
        const p = i.predicted[measure];
        if (t && p) c.tp++;
        else if (p) c.fp++;
        else if (t) c.fn++;
        else c.tn++;
      }
      table.push({ dataset, measure, precision: ratio(c.tp, c.tp + c.fp), recall: ratio(c.tp, c.tp + c.fn), ...c });
    }
  }
  const times = images.map((i) => i.ms).sort((a, b) => a - b);
  const at = (q: number): number => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  return {
    initMs,
    images,
    table,
    msPerImage: { mean: times.reduce((s, t) => s + t, 0) / Math.max(1, times.length), p50: at(0.5), p95: at(0.95) },
  };
}

function pct(v: number): string {
  return Number.isNaN(v) ? '  n/a' : `${(100 * v).toFixed(0).padStart(4)}%`;
}

/** Prints the offline analyzer's precision/recall table and timings (used by `npm run bench`). */
export async function runAnalyzerBench(): Promise<AnalyzerBenchResult> {
  const result = await measureAnalyzer();
  console.log('\n## Offline analyzer (human centernet+movenet on tfjs-wasm, colour heuristics)');
  console.log(`photos: ${PHOTOS_DIR} — ${result.images.length} images, one-cell composites through OfflineAnalyzer.analyzeComposite`);
  console.log(`detector init (wasm backend, models, warm-up): ${result.initMs.toFixed(0)} ms`);
  console.log(
    `time per image: mean ${result.msPerImage.mean.toFixed(0)} ms, p50 ${result.msPerImage.p50.toFixed(0)} ms, p95 ${result.msPerImage.p95.toFixed(0)} ms`,
  );
  console.log(`\n${'data set'.padEnd(18)} ${'measure'.padEnd(32)} precision  recall   tp  fp  fn  tn`);
  for (const r of result.table) {
    console.log(
      `${r.dataset.padEnd(18)} ${r.measure.padEnd(32)} ${pct(r.precision)}     ${pct(r.recall)}  ${[r.tp, r.fp, r.fn, r.tn].map((n) => String(n).padStart(3)).join(' ')}`,
    );
  }
  console.log('"bare head seen" counts any worker judged bare-headed; the product reports the hard hat missing only when no hat is seen in the composite (last measure).');
  return result;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runAnalyzerBench();
}
