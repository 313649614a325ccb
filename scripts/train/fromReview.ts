/**
 * `npm run train -- --from-review DIR [--out DIR] [--no-eval]` (issue 53, ADR 0033): fine-tunes the
 * shipped head and torso classifiers on an organisation's reviewed set (`GET /orgs/{id}/reviews/export`,
 * unzipped in DIR), on top of the shipped model:
 * 1. the set is read through the training's own label pipeline (data.ts: the same YOLO parsing and
 *    class mapping as the shared training photos);
 * 2. each labelled head and torso becomes the crops the shared photos' labels become (samples.ts
 *    planCrops, with the committed calibration; a mirrored and a jittered copy each), embedded by the
 *    shipped backbones, which stay frozen;
 * 3. a replay of the shared training fold's labelled crops (every REPLAY_EVERY-th photo) keeps what
 *    the model knew, and every weight is pulled back toward the shipped one (tuneMlp.ts);
 * 4. the shared hold-out fold's labelled crops are judged before and after (accuracy per kind), the
 *    thresholds are kept as shipped, and the model is written to `--out` (default tmp/ppe-train/from-review)
 *    beside copies of the shipped backbones and head detector, where `BARET_PPE_MODEL` finds them;
 * 5. `npm run eval` runs before and after on sets nobody reviewed (evalBeforeAfter.ts).
 * Never writes the shipped model: whether a customer's set may shape the model other customers get
 * is a decision (ADR 0033).
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { liteEmbedCrops } from '../../services/analysis/src/engine/liteBackbone.js';
import { backboneWeightsPath, embedCrops, type CropKind } from '../../services/analysis/src/engine/ppeEmbedding.js';
import { HEAD_EMBEDDING_ID, liteBackboneFile, MODEL_PATH, predictMlp, type MlpModel, type PpeModelFile } from '../../services/analysis/src/engine/ppeModel.js';
import { CACHE_DIR, listReviewedPhotos, listTrainingPhotos, type TrainingPhoto } from './data.js';
import { copyCommittedHeadDetector } from './heads/heads.js';
import { rounded } from './lite/head.js';
import { tuneMlp, type Sample } from './review/tuneMlp.js';
import { loadRaw, planCrops, rng, type Calibration } from './samples.js';

type SizeOf = (file: string) => Promise<{ width: number; height: number }>;

/**
 * Fixed before measuring (never chosen on the validation photos, the video evaluation or the
 * reviewed set): the number of full-batch steps, their size, the pull toward the shipped weights,
 * how much one reviewed crop weighs against one replayed shared crop, and the replay's share of the
 * shared training fold.
 */
export const FROM_REVIEW = { epochs: 60, learningRate: 1e-3, anchor: 0.01, reviewWeight: 5, replayEvery: 5, seed: 11 } as const;

/** Boxes per kind and label (`head:hat`, `torso:none` …). */
export function countBoxes(photos: readonly TrainingPhoto[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of photos) for (const b of p.boxes) out[`${b.kind}:${b.label}`] = (out[`${b.kind}:${b.label}`] ?? 0) + 1;
  return out;
}

/** One embedded crop: the classifier's input and its label in the classifier's class order. */
interface Embedded {
  features: Float32Array;
  label: number;
  augmented: boolean;
}

/** The labelled crops of `photos` (planCrops without persons: the labels' crops) embedded as the run time embeds them. */
async function embedPhotos(model: PpeModelFile, photos: readonly TrainingPhoto[], cal: Calibration, seed: number, log: (s: string) => void, what: string): Promise<Record<CropKind, Embedded[]>> {
  const rand = rng(seed);
  const out: Record<CropKind, Embedded[]> = { head: [], torso: [] };
  const lite = model.headEmbedding === HEAD_EMBEDDING_ID;
  let done = 0;
  for (const photo of photos) {
    const img = await loadRaw(photo.imagePath);
    const planned = planCrops(photo, [], cal, rand);
    // A Lite2 head reads no mirrored crop (liteEmbedCrops has none): its originals and jittered copies only.
    const heads = planned.head.filter((c) => !(lite && c.flip));
    const headFeatures = lite ? await liteEmbedCrops(liteBackboneFile(model), img, heads.map((c) => c.rect)) : await embedCrops('head', heads.map((c) => ({ img, rect: c.rect, flip: c.flip })));
    const torsoFeatures = await embedCrops('torso', planned.torso.map((c) => ({ img, rect: c.rect, flip: c.flip })));
    heads.forEach((c, i) => out.head.push({ features: headFeatures[i]!, label: c.label, augmented: c.augmented }));
    planned.torso.forEach((c, i) => out.torso.push({ features: torsoFeatures[i]!, label: c.label, augmented: c.augmented }));
    done++;
    if (done % 25 === 0 || done === photos.length) log(`\r${what}: ${done}/${photos.length} photos, ${out.head.length} head and ${out.torso.length} torso crops`);
  }
  log('\n');
  return out;
}

/** Share of `crops` whose likeliest class under `mlp` is their label, with the count per label. */
function accuracy(mlp: MlpModel, crops: readonly Embedded[]): { accuracy: number | null; crops: number; right: Record<string, string> } {
  const right: Record<string, [number, number]> = {};
  let hits = 0;
  for (const c of crops) {
    const p = predictMlp(mlp, c.features);
    const ok = p.indexOf(Math.max(...p)) === c.label;
    const r = (right[mlp.classes[c.label]!] ??= [0, 0]);
    r[1]++;
    if (ok) {
      r[0]++;
      hits++;
    }
  }
  return { accuracy: crops.length ? Number((hits / crops.length).toFixed(4)) : null, crops: crops.length, right: Object.fromEntries(Object.entries(right).map(([k, [a, n]]) => [k, `${a}/${n}`])) };
}

export interface FromReviewReport {
  reviewed_set: string;
  photos: number;
  boxes: Record<string, number>;
  crops: Record<CropKind, { reviewed: number; replay: number; holdout: number }>;
  /** Per kind: the shared hold-out fold and the reviewed crops (originals), judged before and after. */
  before: Record<CropKind, { holdout: ReturnType<typeof accuracy>; reviewed: ReturnType<typeof accuracy> }>;
  after: Record<CropKind, { holdout: ReturnType<typeof accuracy>; reviewed: ReturnType<typeof accuracy> }>;
  tuned: CropKind[];
  losses: Partial<Record<CropKind, { first: number; last: number }>>;
  model: string;
  settings: typeof FROM_REVIEW;
  seconds: number;
}

/** Copies what the run time reads beside a model file (backbones, Lite2, head detector) next to `out`. */
async function copyCompanions(shipped: PpeModelFile, outDir: string): Promise<void> {
  const files = [backboneWeightsPath('torso'), liteBackboneFile(shipped).file];
  if (shipped.backbones.head) files.push(backboneWeightsPath('head'));
  for (const f of files) await copyFile(f, path.join(outDir, path.basename(f)));
  await copyCommittedHeadDetector(outDir);
}

/** Fewer shared photos, for a quick run (tests): every n-th of the replay and of the hold-out fold. */
export interface Thinning {
  replayEvery?: number;
  holdoutEvery?: number;
}

/**
 * Fine-tunes the shipped classifiers on the reviewed set in `dir` and writes the result to
 * `outDir/ppe-classifier.json` (see the top of this file).
 */
export async function trainFromReview(dir: string, outDir: string, sizeOf: SizeOf, log: (s: string) => void, thin: Thinning = {}): Promise<FromReviewReport> {
  const replayEvery = thin.replayEvery ?? FROM_REVIEW.replayEvery;
  const started = performance.now();
  const reviewed = await listReviewedPhotos(dir, sizeOf);
  const boxes = countBoxes(reviewed);
  if (Object.keys(boxes).length === 0) throw new Error(`${dir}: no labelled finding in the set (export reviewed findings first)`);
  const shipped = JSON.parse(await readFile(MODEL_PATH, 'utf8')) as PpeModelFile;
  const cal = shipped.metrics?.calibration as Calibration | undefined;
  if (!cal) throw new Error(`${MODEL_PATH} records no calibration: the reviewed crops cannot be cut as the shared photos' were`);
  const shared = await listTrainingPhotos(sizeOf);
  const holdoutPhotos = shared.filter((p) => p.fold === 'holdout').filter((_, i) => i % (thin.holdoutEvery ?? 1) === 0);
  const replayPhotos = shared.filter((p) => p.fold === 'train').filter((_, i) => i % replayEvery === 0);
  log(`reviewed set ${dir}: ${reviewed.length} crops, ${JSON.stringify(boxes)}\n`);
  const mine = await embedPhotos(shipped, reviewed, cal, FROM_REVIEW.seed, log, 'reviewed');
  // The replay: originals only (the shipped model saw their augmented copies when it was fitted).
  const replay = await embedPhotos(shipped, replayPhotos.map((p) => ({ ...p, fold: 'holdout' as const })), cal, FROM_REVIEW.seed, log, 'replay of the shared training fold');
  const holdout = await embedPhotos(shipped, holdoutPhotos, cal, FROM_REVIEW.seed, log, 'shared hold-out fold');
  const judged = (m: PpeModelFile) =>
    Object.fromEntries((['head', 'torso'] as const).map((k) => [k, { holdout: accuracy(m[k], holdout[k]), reviewed: accuracy(m[k], mine[k].filter((c) => !c.augmented)) }])) as FromReviewReport['before'];
  const before = judged(shipped);
  const tunedModel: PpeModelFile = { ...shipped };
  const tuned: CropKind[] = [];
  const losses: FromReviewReport['losses'] = {};
  for (const kind of ['head', 'torso'] as const) {
    if (mine[kind].length === 0) continue;
    const samples: Sample[] = [...mine[kind].map((c) => ({ features: c.features, label: c.label, weight: FROM_REVIEW.reviewWeight })), ...replay[kind].map((c) => ({ features: c.features, label: c.label, weight: 1 }))];
    log(`${kind}: fine-tuning on ${mine[kind].length} reviewed crops and ${replay[kind].length} replayed (${FROM_REVIEW.epochs} steps)\n`);
    const result = tuneMlp(shipped[kind], samples, FROM_REVIEW);
    (tunedModel as Record<CropKind, MlpModel>)[kind] = rounded(result.model);
    tuned.push(kind);
    losses[kind] = { first: Number(result.losses[0]!.toFixed(4)), last: Number(result.losses.at(-1)!.toFixed(4)) };
  }
  const after = judged(tunedModel);
  await mkdir(outDir, { recursive: true });
  const report: FromReviewReport = {
    reviewed_set: dir,
    photos: reviewed.length,
    boxes,
    crops: { head: { reviewed: mine.head.length, replay: replay.head.length, holdout: holdout.head.length }, torso: { reviewed: mine.torso.length, replay: replay.torso.length, holdout: holdout.torso.length } },
    before,
    after,
    tuned,
    losses,
    model: path.join(outDir, 'ppe-classifier.json'),
    settings: FROM_REVIEW,
    seconds: Math.round((performance.now() - started) / 1000),
  };
  tunedModel.metrics = { ...shipped.metrics, fromReview: report };
  await copyCompanions(shipped, outDir);
  await writeFile(report.model, JSON.stringify(tunedModel) + '\n');
  return report;
}

/** Where `--from-review` writes when no `--out` is given. */
export const FROM_REVIEW_OUT = path.join(CACHE_DIR, 'from-review');
