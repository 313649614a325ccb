/**
 * Step 6 of `npm run train` (train.ts): the head detector (services/analysis/src/engine/
 * headDetector.ts). Writes every training photo resampled to the detector's input the way the run
 * time does, with its labelled head boxes (`photos-384.u8`, `photos-meta.json` in
 * tmp/ppe-train/heads), lets `train_heads.py` train the head on the frozen backbone's activations
 * (fixed epochs and seed), then loads the result into the run-time detector and checks that its
 * heatmaps on hold-out photos match TensorFlow's. The validation photos are never read.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, open, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  HEAD_DETECTOR_FEATURES,
  HEAD_DETECTOR_LITE2_VERSION,
  HEAD_DETECTOR_INPUT,
  HEAD_DETECTOR_PATH,
  HEAD_DETECTOR_STRIDE,
  HEAD_DETECTOR_VERSION,
  headDetectorInput,
  type HeadDetectorLite2File,
  headDetectorMaps,
  makeHeadDetector,
  type HeadDetectorFile,
} from '../../../services/analysis/src/engine/headDetector.js';
import { headBoxPlace, type HeadBoxGeometry } from '../../../services/analysis/src/engine/ppeFeatures.js';
import { CACHE_DIR, CV_SUBSET, type HeadLabel, type TrainingPhoto } from '../data.js';
import { photoKey } from '../detect.js';
import { loadRaw, type Calibration } from '../samples.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const HEADS_DIR = path.join(CACHE_DIR, 'heads');
/**
 * BARET_HEADWEAR_BOXES=head (issue 38, ADR 0031 addendum; measured, not the default): the detectors'
 * targets for hard-hat-or-headwear's boxes are moved to the head they cover.
 */
const HEADWEAR_AS_HEAD = process.env.BARET_HEADWEAR_BOXES === 'head';
/** Bump when the written inputs change: a cached dump of another version is rebuilt (3: headwear boxes moved to heads). */
const DUMP_VERSION = HEADWEAR_AS_HEAD ? 3 : 2;

/**
 * hard-hat-or-headwear's boxes are drawn around the headwear (the eye line lies near the box's
 * bottom), the other subsets' mostly around the head. Where the person detector's keypoint head lies
 * against such a box (median over persons whose face keypoints match a labelled box, measured
 * 2026-11-28 on this subset's 203 photos: 31 hard hats, 106 other headgear, 82 bare heads): its
 * centre's offset and the head's width in box widths, the eye line in box heights.
 */
const HEADWEAR_BOX: Record<HeadLabel, HeadBoxGeometry> = {
  hat: { dx: 0.012, eye: 1.031, width: 0.797 },
  other: { dx: 0.017, eye: 0.696, width: 0.652 },
  bare: { dx: 0.003, eye: 0.957, width: 0.934 },
};
/** The head box, in the convention `crop` (the detector's box → head geometry) reads, height 1.2 widths, around the head under a headwear box. */
function headBoxOfHeadwear(box: readonly [number, number, number, number], label: HeadLabel, crop: HeadBoxGeometry): [number, number, number, number] {
  const { cx, eyeY, width } = headBoxPlace(box, HEADWEAR_BOX[label]);
  const bw = width / crop.width;
  const bh = 1.2 * bw;
  return [cx - crop.dx * bw - bw / 2, eyeY - crop.eye * bh, bw, bh];
}
/** Training epochs and seed, fixed (the prototype's: MODEL_CARD.md, "the head detector"). */
const HEAD_EPOCHS = 10;
const SEED = 1;
/**
 * Each training photo of the cross-validated subset is seen this many times per epoch (issue 38):
 * 160-odd photos among 1,700 would otherwise teach little. BARET_HEADS_REPEAT overrides it (to measure).
 */
const CV_SUBSET_REPEAT = Number(process.env.BARET_HEADS_REPEAT ?? 1);
/** Largest difference allowed between tfjs's and TensorFlow's heatmap values on hold-out photos. */
const PARITY_TOLERANCE = 2e-3;
const BYTES = HEAD_DETECTOR_INPUT * HEAD_DETECTOR_INPUT * 3;

interface PhotoRow {
  photo: string;
  fold: TrainingPhoto['fold'];
  /** The photo's cross-validation fold (the cross-validated subset only): `--exclude-cv-fold` leaves it out. */
  cvFold?: number;
  /** Labelled heads in input pixels: `[x, y, w, h]`, 0 = hard hat, 1 = no hard hat (bare or other headgear). */
  heads: Array<{ label: 0 | 1; box: [number, number, number, number] }>;
}

interface PhotosMeta {
  version: number;
  input: number;
  photos: PhotoRow[];
}

/** What train_heads.py writes next to the weights. */
interface Trained {
  featureMean: number[][];
  featureStd: number[][];
  layers: HeadDetectorFile['layers'];
  minScore: number;
  holdout: { index: number[]; heat: number[] };
  report: Record<string, unknown>;
}

async function cached(photos: TrainingPhoto[]): Promise<PhotosMeta | null> {
  const meta = await readFile(path.join(HEADS_DIR, 'photos-meta.json'), 'utf8').then((s) => JSON.parse(s) as PhotosMeta, () => null);
  if (!meta || meta.version !== DUMP_VERSION || meta.input !== HEAD_DETECTOR_INPUT || meta.photos.length !== photos.length) return null;
  if (meta.photos.some((r, i) => r.photo !== photoKey(photos[i]!))) return null;
  const size = await stat(path.join(HEADS_DIR, 'photos-384.u8')).then((s) => s.size, () => -1);
  return size === photos.length * BYTES ? meta : null;
}

/** Writes (or finds) every photo at the detector's input size, with its head boxes. */
async function dumpPhotos(photos: TrainingPhoto[], crop: HeadBoxGeometry, log: (s: string) => void): Promise<PhotosMeta> {
  const found = await cached(photos);
  if (found) {
    log(`head detector inputs from ${HEADS_DIR}\n`);
    return found;
  }
  await mkdir(HEADS_DIR, { recursive: true });
  const out = await open(path.join(HEADS_DIR, 'photos-384.u8'), 'w');
  const meta: PhotosMeta = { version: DUMP_VERSION, input: HEAD_DETECTOR_INPUT, photos: [] };
  try {
    for (const [i, photo] of photos.entries()) {
      const img = await loadRaw(photo.imagePath);
      // Every photo at 384 × 384 (nearly all are square; the run time keeps a frame's aspect).
      const square = { width: HEAD_DETECTOR_INPUT, height: HEAD_DETECTOR_INPUT };
      await out.write(Uint8Array.from(headDetectorInput(img, square).data, (v) => Math.max(0, Math.min(255, Math.round(v)))));
      const sx = HEAD_DETECTOR_INPUT / img.width;
      const sy = HEAD_DETECTOR_INPUT / img.height;
      const heads = photo.boxes
        .filter((b) => b.kind === 'head')
        .map((b) => {
          const box = HEADWEAR_AS_HEAD && photo.subset === CV_SUBSET ? headBoxOfHeadwear(b.box, b.label as HeadLabel, crop) : b.box;
          return { label: b.label === 'hat' ? 0 : 1, box: [box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy] } as PhotoRow['heads'][number];
        });
      meta.photos.push({ photo: photoKey(photo), fold: photo.fold, ...(photo.cvFold !== undefined ? { cvFold: photo.cvFold } : {}), heads });
      if ((i + 1) % 100 === 0 || i + 1 === photos.length) log(`\rhead detector inputs ${i + 1}/${photos.length}`);
    }
  } finally {
    await out.close();
  }
  await writeFile(path.join(HEADS_DIR, 'photos-meta.json'), JSON.stringify(meta));
  log('\n');
  return meta;
}

/** Box → head geometry for the crops around detected heads: the mean of the hard-hat and bare calibrations. */
export function boxGeometry(cal: Calibration): HeadBoxGeometry {
  const r = (v: number): number => Number(v.toPrecision(6));
  const { hat, bare } = cal.head;
  return { dx: r((hat.dx + bare.dx) / 2), eye: r((hat.eye + bare.eye) / 2), width: r((hat.width + bare.width) / 2) };
}

/**
 * Trains the head detector (or, with BARET_TRAIN_REUSE_TUNED=1, takes an earlier run's output of
 * the same epochs), checks tfjs against TensorFlow, and returns the model file and its weights.
 * `crop`: the box → head geometry written into the file ({@link boxGeometry} of the calibration).
 * `excludeCvFold`: a cross-validation run (train.ts `--cv --cv-train-detector`, issue 38) — the
 * cross-validated subset trains the detector too, except that fold's photos; the output in
 * tmp/ppe-train/heads/cv-fold-K. Without it, the subsets data.ts marks `headDetector` (the shipped recipe).
 */
export async function trainHeadDetector(
  py: string,
  run: (cmd: string, args: string[], env?: NodeJS.ProcessEnv) => Promise<void>,
  allPhotos: TrainingPhoto[],
  crop: HeadBoxGeometry,
  log: (s: string) => void,
  excludeCvFold?: number,
): Promise<{ file: HeadDetectorFile; weights: Buffer }> {
  // Subsets kept out of the head detector (data.ts, `headDetector`): the cross-validated one, so a
  // fold's photos are judged by a detector that never saw them without a detector per fold.
  const photos = allPhotos.filter((p) => p.headDetector || (excludeCvFold !== undefined && p.cvFold !== undefined));
  const meta = await dumpPhotos(photos, crop, log);
  const outDir = excludeCvFold === undefined ? HEADS_DIR : path.join(HEADS_DIR, `cv-fold-${excludeCvFold}`);
  const trainedFile = path.join(outDir, 'head-detector.json');
  const weightsFile = path.join(outDir, 'head-detector.bin');
  const earlier = await readFile(trainedFile, 'utf8').then((s) => JSON.parse(s) as Trained, () => null);
  if (process.env.BARET_TRAIN_REUSE_TUNED === '1' && earlier?.report.epochs === HEAD_EPOCHS && (earlier.report.repeatCvSubset ?? 1) === CV_SUBSET_REPEAT && existsSync(weightsFile)) {
    log(`head detector from ${outDir}\n`);
  } else {
    const args = [path.join(HERE, 'train_heads.py'), '--dir', HEADS_DIR, '--out', outDir, '--epochs', String(HEAD_EPOCHS), '--seed', String(SEED), '--repeat-cv-subset', String(CV_SUBSET_REPEAT)];
    if (excludeCvFold !== undefined) args.push('--exclude-cv-fold', String(excludeCvFold));
    await run(py, args, { ...process.env, PYTHONHASHSEED: '0', TF_CPP_MIN_LOG_LEVEL: '2' });
  }
  const trained = JSON.parse(await readFile(trainedFile, 'utf8')) as Trained;
  const weights = await readFile(weightsFile);
  const file: HeadDetectorFile = {
    version: HEAD_DETECTOR_VERSION,
    input: HEAD_DETECTOR_INPUT,
    stride: HEAD_DETECTOR_STRIDE,
    features: [...HEAD_DETECTOR_FEATURES],
    featureMean: trained.featureMean,
    featureStd: trained.featureStd,
    layers: trained.layers,
    weights: { file: 'ppe-head-detector.bin', sha256: createHash('sha256').update(weights).digest('hex') },
    minScore: trained.minScore,
    crop,
    metrics: { seed: SEED, epochs: HEAD_EPOCHS, photos: meta.photos.length, ...trained.report },
  };
  const worst = await parity(file, weights, trained);
  log(`head detector: tfjs and TensorFlow heatmaps differ by at most ${worst.toExponential(2)} on ${trained.holdout.index.length} hold-out photos\n`);
  if (!(worst <= PARITY_TOLERANCE)) throw new Error(`head detector: tfjs differs from TensorFlow by ${worst} (more than ${PARITY_TOLERANCE}); nothing written`);
  file.metrics!.parityMaxHeatmapDifference = Number(worst.toExponential(2));
  return { file, weights };
}

/** Largest difference between the run-time detector's heatmaps and TensorFlow's on the photos train_heads.py checked. */
async function parity(file: HeadDetectorFile, weights: Buffer, trained: Trained): Promise<number> {
  const det = await makeHeadDetector(file, weights);
  const photos = await open(path.join(HEADS_DIR, 'photos-384.u8'));
  const cells = (HEAD_DETECTOR_INPUT / HEAD_DETECTOR_STRIDE) ** 2 * 2;
  let worst = 0;
  try {
    const buf = Buffer.alloc(BYTES);
    for (const [k, row] of trained.holdout.index.entries()) {
      await photos.read(buf, 0, BYTES, row * BYTES);
      const { heat } = await headDetectorMaps(det, Float32Array.from(buf), 1, HEAD_DETECTOR_INPUT, HEAD_DETECTOR_INPUT);
      for (let i = 0; i < cells; i++) worst = Math.max(worst, Math.abs(heat[i]! - trained.holdout.heat[k * cells + i]!));
    }
  } finally {
    await photos.close();
    det.backbone!.dispose();
    Object.values(det.tensors).forEach((t) => t.dispose());
  }
  return worst;
}

/**
 * The head detector on EfficientNet-Lite2 (issue 38, ADR 0031; measured, not shipped): trained by
 * `lite_heads.py` with `exportPy` (torch: scripts/train/lite/requirements-export.txt) on every
 * training photo, the cross-validated subset's too, except fold `excludeCvFold`'s (every photo when
 * none is given); the output in tmp/ppe-train/heads/cv-fold-K-lite2, or heads/lite2
 * (BARET_TRAIN_REUSE_TUNED=1 keeps an earlier one). Returns the
 * format-2 model file and its ONNX bytes.
 */
export async function trainLiteHeadDetector(
  exportPy: string,
  run: (cmd: string, args: string[], env?: NodeJS.ProcessEnv) => Promise<void>,
  photos: TrainingPhoto[],
  crop: HeadBoxGeometry,
  log: (s: string) => void,
  excludeCvFold?: number,
): Promise<{ file: HeadDetectorLite2File; weights: Buffer }> {
  const meta = await dumpPhotos(photos, crop, log);
  const outDir = path.join(HEADS_DIR, excludeCvFold === undefined ? 'lite2' : `cv-fold-${excludeCvFold}-lite2`);
  const onnxFile = path.join(outDir, 'head-detector-lite2.onnx');
  const trainedFile = path.join(outDir, 'head-detector-lite2.json');
  if (process.env.BARET_TRAIN_REUSE_TUNED === '1' && existsSync(onnxFile) && existsSync(trainedFile)) {
    log(`head detector from ${outDir}\n`);
  } else {
    const args = [path.join(HERE, 'lite_heads.py'), '--dir', HEADS_DIR, '--out', outDir, '--epochs', String(HEAD_EPOCHS), '--seed', String(SEED)];
    if (excludeCvFold !== undefined) args.push('--exclude-cv-fold', String(excludeCvFold));
    await run(exportPy, args, { ...process.env, PYTHONHASHSEED: '0' });
  }
  const trained = JSON.parse(await readFile(trainedFile, 'utf8')) as { minScore: number; report: Record<string, unknown> };
  const weights = await readFile(onnxFile);
  const file: HeadDetectorLite2File = {
    version: HEAD_DETECTOR_LITE2_VERSION,
    input: HEAD_DETECTOR_INPUT,
    stride: HEAD_DETECTOR_STRIDE,
    weights: { file: 'ppe-head-detector-lite2.onnx', sha256: createHash('sha256').update(weights).digest('hex') },
    minScore: trained.minScore,
    crop,
    metrics: { seed: SEED, epochs: HEAD_EPOCHS, photos: meta.photos.length, ...trained.report },
  };
  return { file, weights };
}

/** Copies the committed head detector (its model file and weights) into `dir`, where the analyzer finds it beside a model file there (`BARET_PPE_MODEL`). */
export async function copyCommittedHeadDetector(dir: string): Promise<void> {
  const detector = JSON.parse(await readFile(HEAD_DETECTOR_PATH, 'utf8')) as { weights: { file: string } };
  await copyFile(HEAD_DETECTOR_PATH, path.join(dir, path.basename(HEAD_DETECTOR_PATH)));
  await copyFile(path.join(path.dirname(HEAD_DETECTOR_PATH), detector.weights.file), path.join(dir, detector.weights.file));
}
