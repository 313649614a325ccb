/**
 * `npm run train`: reproduces the offline PPE classifier — `services/analysis/models/ppe-classifier.json`
 * and the two fine-tuned backbones next to it, `ppe-backbone-head.bin` and `ppe-backbone-torso.bin`
 * — from `../shared/data/ppe-training` (read in place). Steps:
 * 1. detect persons on every photo with the analyzer's detector (cached in tmp/ppe-train);
 * 2. plan the head and torso crops (samples.ts) and write them as pixels (finetune/dump-crops.ts);
 * 3. per kind, fine-tune the backbone together with a small classifier in TensorFlow
 *    (finetune/finetune.py, fixed epochs and seed, the mean of the weights after each epoch from
 *    the second on; a Python virtual environment with the pinned
 *    `tensorflow-cpu` is made in tmp/ppe-train/venv on first use; docs/adr/0016);
 * 4. load each tuned backbone into tfjs the way the run time does, check that its probabilities on
 *    every hold-out crop match TensorFlow's, and pick the verdict thresholds on them (hold-out fold:
 *    15 % of the photos, by name hash);
 * 5. train the head detector on the frozen person-detector backbone (heads/heads.ts,
 *    heads/train_heads.py) and check tfjs against TensorFlow the same way;
 * 6. write the weights.
 *
 * `--from-review DIR [--out DIR] [--no-eval] [--no-videos]` (issue 53, fromReview.ts): fine-tunes the
 * shipped head and torso classifiers on an organisation's exported reviewed set, on top of the
 * shipped model, writes the result to tmp/ppe-train/from-review (never over the shipped model) and
 * prints `npm run eval` before and after on the validation photos and the videos made of them (ADR 0033).
 *
 * `../shared/data/ppe-photos` (the validation set) is never read here.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, open, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEAD_DETECTOR_PATH } from '../../services/analysis/src/engine/headDetector.js';
import { passesFluorescentGate } from '../../services/analysis/src/engine/ppe.js';
import { backboneWeightsPath, embedPixels, loadBackbone, type CropKind } from '../../services/analysis/src/engine/ppeEmbedding.js';
import { LITE_ONNX_FILE } from '../../services/analysis/src/engine/liteBackbone.js';
import { EMBEDDING_ID, HEAD_EMBEDDING_ID, MODEL_PATH, MODEL_VERSION, predictMlp, type MlpModel, type PpeModelFile } from '../../services/analysis/src/engine/ppeModel.js';
import { addConfusion, emptyConfusion, formatConfusion, type HeadConfusion } from '../eval/measure.js';
import { CACHE_DIR, CV_FOLDS, CV_SUBSET, listTrainingPhotos, readJsonCache, SUBSETS, TRAINING_DIR, type TrainingPhoto } from './data.js';
import { detectAll, photoKey, sizeOf, type Detections } from './detect.js';
import { bytesPerCrop, dumpCrops, type CropRow, type CropsMeta } from './finetune/dump-crops.js';
import { boxGeometry, copyCommittedHeadDetector, trainHeadDetector, trainLiteHeadDetector } from './heads/heads.js';
import { dumpLiteCrops, LITE_DIR, type LiteCropsMeta } from './lite/crops.js';
import { rounded, trainLiteHead, type LiteHead } from './lite/head.js';
import { dumpPatternCrops } from './lite/patterns.js';
import { FROM_REVIEW_OUT, trainFromReview } from './fromReview.js';
import { compareRows, evalJson, evalLine, evalSets } from './review/evalBeforeAfter.js';
import { calibrate, type Calibration } from './samples.js';
import { curve, headThresholds, pick, type Curve } from './thresholds.js';

const SEED = 11;
/**
 * Fine-tuning epochs per kind, fixed beforehand (the prototype's settings, scripts/train/finetune/
 * README.md): never chosen on the hold-out fold, which picks the thresholds.
 */
const EPOCHS: Record<CropKind, number> = { head: 5, torso: 4 };
/**
 * The written weights are the mean of the weights after each epoch from this one on (stochastic
 * weight averaging: the per-epoch figures swing, their mean is steadier). Fixed before measuring;
 * adopted on the hold-out fold (MODEL_CARD.md, "v3.1").
 */
const AVERAGE_FROM = 2;
/** Largest difference allowed between tfjs's and TensorFlow's probability of a hold-out crop. */
const PARITY_TOLERANCE = 1e-3;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const FINETUNE_DIR = path.join(HERE, 'finetune');
const CROPS_DIR = path.join(CACHE_DIR, 'finetune');
/** The head classifier's backbone (ADR 0028), committed beside the model file. */
const LITE_ONNX = path.join(path.dirname(MODEL_PATH), LITE_ONNX_FILE);

const log = (s: string): void => {
  process.stderr.write(s);
};

const round = (v: number): number => Number(v.toPrecision(6));

/** Runs a command with the output shown; rejects when it fails. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'], env });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${String(code)}`})`))));
  });
}

/**
 * The Python that fine-tunes: BARET_PYTHON when set, else a virtual environment in the cache
 * folder with `finetune/requirements.txt` installed (again when that file changes).
 */
async function python(): Promise<string> {
  if (process.env.BARET_PYTHON) return process.env.BARET_PYTHON;
  const venv = path.join(CACHE_DIR, 'venv');
  const bin = path.join(venv, 'bin', 'python');
  const requirements = path.join(FINETUNE_DIR, 'requirements.txt');
  const wanted = createHash('sha256').update(await readFile(requirements)).digest('hex');
  const stamp = path.join(venv, 'requirements.sha256');
  if (!existsSync(bin)) {
    const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });
    if (probe.status !== 0) throw new Error('npm run train needs python3 with venv (Debian: apt-get install -y python3-venv), or BARET_PYTHON pointing at a Python with finetune/requirements.txt installed');
    log(`making a Python environment in ${venv}\n`);
    await run('python3', ['-m', 'venv', venv]);
  }
  if ((await readFile(stamp, 'utf8').catch(() => '')) !== wanted) {
    log(`installing ${requirements}\n`);
    await run(bin, ['-m', 'pip', 'install', '--quiet', '-r', requirements]);
    await writeFile(stamp, wanted);
  }
  return bin;
}

/** What finetune.py writes per kind: the classifier and TensorFlow's probabilities on the hold-out crops. */
interface Tuned {
  model: MlpModel;
  holdout: { index: number[]; p: number[][] };
  report: { frozen: unknown; epochs: unknown[]; averaged?: { epochs: number } };
}

/**
 * Fine-tunes one kind (or, with BARET_TRAIN_REUSE_TUNED=1, takes an earlier run's output of the
 * same epochs and averaging). `fold`: a cross-validation run — the photos listed in its `exclude`
 * file left out, the output written to its `dir`.
 */
async function fineTune(py: string, kind: CropKind, fold?: { exclude: string; dir: string }): Promise<Tuned> {
  const dir = fold?.dir ?? CROPS_DIR;
  const file = path.join(dir, `classifier-${kind}.json`);
  if (process.env.BARET_TRAIN_REUSE_TUNED === '1') {
    const earlier = await readFile(file, 'utf8').then((s) => JSON.parse(s) as Tuned, () => null);
    if (earlier?.report.epochs.length === EPOCHS[kind] && earlier.report.averaged?.epochs === EPOCHS[kind] - AVERAGE_FROM + 1 && existsSync(path.join(dir, `backbone-${kind}.bin`))) {
      log(`${kind}: fine-tuned backbone from ${dir}\n`);
      return earlier;
    }
  }
  const args = [path.join(FINETUNE_DIR, 'finetune.py'), '--kind', kind, '--epochs', String(EPOCHS[kind]), '--average-from', String(AVERAGE_FROM), '--out', CROPS_DIR];
  if (fold) args.push('--exclude', fold.exclude, '--write', fold.dir);
  await run(py, args, { ...process.env, PYTHONHASHSEED: '0', TF_CPP_MIN_LOG_LEVEL: '2' });
  return JSON.parse(await readFile(file, 'utf8')) as Tuned;
}


/**
 * Probabilities of the hold-out crops by tfjs — the tuned weights loaded into the run time's
 * backbone graph, the committed (rounded) classifier — and their largest difference from TensorFlow's.
 */
async function tfjsProbabilities(kind: CropKind, weights: Buffer, mlp: MlpModel, tuned: Tuned): Promise<{ p: number[][]; worst: number }> {
  const backbone = await loadBackbone(weights);
  const size = bytesPerCrop(kind);
  // Only the hold-out rows are read from the crop file (the training rows are most of its 0.5 GB).
  const crops = await open(path.join(CROPS_DIR, `crops-${kind}.u8`));
  const rows = tuned.holdout.index;
  const p: number[][] = [];
  const crop = Buffer.alloc(size);
  try {
    for (let start = 0; start < rows.length; start += 16) {
      const batch = rows.slice(start, start + 16);
      const pixels = new Float32Array(batch.length * size);
      for (const [i, row] of batch.entries()) {
        await crops.read(crop, 0, size, row * size);
        pixels.set(crop, i * size);
      }
      for (const e of await embedPixels(backbone, kind, pixels, batch.length)) p.push(predictMlp(mlp, e));
      log(`\r${kind}: tfjs on hold-out crops ${p.length}/${rows.length}`);
    }
  } finally {
    await crops.close();
    backbone.dispose();
  }
  log('\n');
  const worst = Math.max(...p.map((q, i) => Math.max(...q.map((v, c) => Math.abs(v - tuned.holdout.p[i]![c]!)))));
  return { p, worst };
}

/** Share of crops whose likeliest class is their label. */
const accuracy = (scored: ReadonlyArray<{ p: number[]; row: CropRow }>): number =>
  scored.filter((s) => s.p.indexOf(Math.max(...s.p)) === s.row.label).length / Math.max(1, scored.length);

function counts(kind: CropKind, rows: CropRow[]): Record<string, number> {
  const n = (f: (r: CropRow) => boolean): number => rows.filter(f).length;
  return {
    [`${kind}_train_original`]: n((r) => r.fold === 'train' && !r.augmented),
    [`${kind}_train_with_augmented`]: n((r) => r.fold === 'train'),
    [`${kind}_holdout`]: n((r) => r.fold === 'holdout'),
    [`${kind}_from_detector`]: n((r) => r.source === 'detector' && !r.augmented),
  };
}

/** What `npm run eval` prints (its JSON line), the parts the cross-validation adds up. */
interface EvalLine {
  measures: Record<string, { tp: number; fp: number; fn: number }>;
  workers: Record<string, { tp: number; fp: number; fn: number }>;
  heads?: HeadConfusion;
  images: number;
  ms_per_image: number;
}

/**
 * `npm run train -- --cv`: 5-fold cross-validation on {@link CV_SUBSET}, grouped by photo. For each
 * fold, the head classifier is fitted by the shipped recipe (lite/head.ts) on every training crop
 * except that fold's photos', its thresholds picked on the usual hold-out fold (the torso classifier
 * and the head detector never train on that subset, so the committed ones are used); then that
 * fold's photos go through `npm run eval` with that model (`BARET_PPE_MODEL`). The figures over the
 * folds are printed and written to tmp/ppe-train/cv/report.json. The shipped model (plain
 * `npm run train`) trains on every fold.
 * Options: `--cv-folds 0,2` only those folds (0-based); `--cv-train-detector` (issue 38, measured
 * and not shipped: ADR 0028) a head detector per fold that also trains on the subset's other folds'
 * photos (heads/heads.ts; ~4–8 min a fold here), written to tmp/ppe-train/cv-train-detector
 * (BARET_CV_DIR names another folder; BARET_HEADS_REPEAT repeats the subset's photos per epoch).
 * BARET_TRAIN_REUSE_TUNED=1 takes a fold's earlier Lite2 fit and detector as they are.
 * `--cv-lite-detector` (issue 38, ADR 0031, measured and not shipped): per fold, the head detector
 * on EfficientNet-Lite2 (heads/lite_heads.py with BARET_EXPORT_PYTHON: torch; ~9 min a fold here),
 * trained on every subset but that fold's photos; written to tmp/ppe-train/cv-lite-detector.
 * `--cv-finetune-lite` (issue 38, ADR 0028 addendum 3): per fold, EfficientNet-Lite2's last blocks
 * fine-tuned on the head crops without that fold's photos (lite/finetune_tail.py, with the Python of
 * BARET_EXPORT_PYTHON: torch), exported as that fold's ONNX file; the head classifier and head check
 * are then fitted on its embedding by the usual recipe. Written to tmp/ppe-train/cv-finetune-lite.
 */
async function crossValidate(py: string, photos: TrainingPhoto[], meta: LiteCropsMeta): Promise<void> {
  const liteDetector = process.argv.includes('--cv-lite-detector');
  const committedDetector = !process.argv.includes('--cv-train-detector') && !liteDetector;
  const foldsArg = process.argv.indexOf('--cv-folds');
  const only = foldsArg >= 0 ? new Set(process.argv[foldsArg + 1]!.split(',').map(Number)) : null;
  const finetuneLite = process.argv.includes('--cv-finetune-lite');
  const cvDir = path.join(CACHE_DIR, process.env.BARET_CV_DIR ?? (finetuneLite ? 'cv-finetune-lite' : liteDetector ? 'cv-lite-detector' : committedDetector ? 'cv' : 'cv-train-detector'));
  const committed = JSON.parse(await readFile(MODEL_PATH, 'utf8')) as PpeModelFile;
  const cls = SUBSETS[CV_SUBSET]!;
  const sums: EvalLine = { measures: {}, workers: {}, heads: emptyConfusion(), images: 0, ms_per_image: 0 };
  const add = (to: Record<string, { tp: number; fp: number; fn: number }>, from: Record<string, { tp: number; fp: number; fn: number }>): void => {
    for (const [k, f] of Object.entries(from)) {
      const t = (to[k] ??= { tp: 0, fp: 0, fn: 0 });
      t.tp += f.tp;
      t.fp += f.fp;
      t.fn += f.fn;
    }
  };
  const folds = [];
  for (let k = 0; k < CV_FOLDS; k++) {
    if (only && !only.has(k)) continue;
    const foldStarted = performance.now();
    const dir = path.join(cvDir, `fold-${k}`);
    const test = photos.filter((p) => p.cvFold === k);
    await mkdir(path.join(dir, 'images'), { recursive: true });
    await mkdir(path.join(dir, 'labels'), { recursive: true });
    log(`fold ${k + 1}/${CV_FOLDS}: ${test.length} photos left out\n`);
    const onnx = finetuneLite ? await finetunedLite(dir, k) : LITE_ONNX;
    const head = await trainLiteHead(run, py, meta, onnx, path.join(dir, 'classifier-head.json'), log, k);
    const file: PpeModelFile = {
      ...committed,
      version: MODEL_VERSION,
      headEmbedding: HEAD_EMBEDDING_ID,
      backbones: { torso: committed.backbones.torso, lite: { file: LITE_ONNX_FILE, sha256: head.onnxSha256 } },
      head: head.model as PpeModelFile['head'],
      headCheck: head.check as PpeModelFile['headCheck'],
      thresholds: { ...committed.thresholds, hatSeen: head.thresholds.hat.threshold, noHatSeen: head.thresholds.noHat.threshold, notHead: head.notHead.threshold },
      metrics: { crossValidationFold: k, notHead: head.notHead, holdout: { headAccuracy: head.holdout.accuracy, ...head.thresholds }, fit: head.report },
    };
    await writeFile(path.join(dir, 'ppe-classifier.json'), JSON.stringify(file));
    await copyFile(onnx, path.join(dir, LITE_ONNX_FILE));
    await copyFile(backboneWeightsPath('torso'), path.join(dir, 'ppe-backbone-torso.bin'));
    // The head detector, found beside the model file: one trained without this fold's photos, or the committed one.
    const detectorStarted = performance.now();
    if (committedDetector) await copyCommittedHeadDetector(dir);
    else {
      const heads = liteDetector
        ? await trainLiteHeadDetector(exportPython('--cv-lite-detector'), run, photos, await committedCrop(), log, k)
        : await trainHeadDetector(py, run, photos, await committedCrop(), log, k);
      await writeFile(path.join(dir, heads.file.weights.file), heads.weights);
      await writeFile(path.join(dir, path.basename(HEAD_DETECTOR_PATH)), JSON.stringify(heads.file) + '\n');
    }
    const detectorSeconds = Math.round((performance.now() - detectorStarted) / 1000);
    // The fold's photos, seen through links: `npm run eval` judges a folder.
    await Promise.all(
      test.map(async (p) => {
        const label = p.file.replace(/\.[^.]+$/, '.txt');
        await symlink(p.imagePath, path.join(dir, 'images', p.file)).catch(() => undefined);
        await symlink(path.join(path.dirname(path.dirname(p.imagePath)), 'labels', label), path.join(dir, 'labels', label)).catch(() => undefined);
      }),
    );
    const evalArgs = ['--images', path.join(dir, 'images'), '--labels', path.join(dir, 'labels'), '--helmet', String(cls.helmet), '--bare-head', `${cls.bare},${cls.other}`, '--other-headgear', String(cls.other)];
    const line = await evalJson<EvalLine>(evalArgs, path.join(dir, 'ppe-classifier.json'), true);
    add(sums.measures, line.measures);
    add(sums.workers, line.workers);
    if (line.heads) addConfusion(sums.heads!, line.heads);
    sums.ms_per_image += line.ms_per_image * line.images;
    sums.images += line.images;
    folds.push({ fold: k, photos: test.length, thresholds: file.thresholds, measures: line.measures, workers: line.workers, heads: line.heads, ms_per_image: line.ms_per_image, detector: committedDetector ? 'committed' : `${liteDetector ? 'Lite2, ' : ''}trained without fold ${k}`, detectorSeconds, seconds: Math.round((performance.now() - foldStarted) / 1000) });
    log(`fold ${k + 1}/${CV_FOLDS}: ${JSON.stringify(folds.at(-1)!.workers)} (${folds.at(-1)!.seconds} s)\n`);
  }
  const figures = (f: { tp: number; fp: number; fn: number }) => ({
    precision: f.tp + f.fp ? round(f.tp / (f.tp + f.fp)) : null,
    recall: f.tp + f.fn ? round(f.tp / (f.tp + f.fn)) : null,
    ...f,
  });
  const report = {
    subset: CV_SUBSET,
    folds: folds.map((f) => f.fold),
    detector: committedDetector ? 'committed' : 'per fold, trained on the other folds too',
    images: sums.images,
    ms_per_image: Math.round(sums.ms_per_image / Math.max(1, sums.images)),
    measures: Object.fromEntries(Object.entries(sums.measures).map(([k, f]) => [k, figures(f)])),
    workers: Object.fromEntries(Object.entries(sums.workers).map(([k, f]) => [k, figures(f)])),
    heads: sums.heads,
    byFold: folds,
  };
  await writeFile(path.join(cvDir, 'report.json'), JSON.stringify(report, null, 2) + '\n');
  log(`\n${CV_FOLDS}-fold cross-validation on ${CV_SUBSET}, folds ${report.folds.join(', ')} (${sums.images} photos, each judged by a model that never trained on it)\n`);
  log(formatConfusion(sums.heads!) + '\n');
  console.log(JSON.stringify({ crossValidation: { measures: report.measures, workers: report.workers, heads: report.heads, images: report.images } }));
}

/** The Python with torch (scripts/train/lite/requirements-export.txt) that BARET_EXPORT_PYTHON names, for `what`. */
function exportPython(what: string): string {
  const py = process.env.BARET_EXPORT_PYTHON;
  if (!py) throw new Error(`${what} needs BARET_EXPORT_PYTHON: a Python with scripts/train/lite/requirements-export.txt installed`);
  return py;
}

/**
 * `--cv-finetune-lite`: EfficientNet-Lite2 with its last blocks fine-tuned on every training head
 * crop but fold `k`'s (lite/finetune_tail.py; the frozen blocks' activations cached once by
 * lite/tail_cache.py), as `dir/lite-tuned.onnx`; it also writes the embeddings of every crop under
 * that file's hash, where train_head.py finds them. BARET_TRAIN_REUSE_TUNED=1 keeps an earlier one.
 */
async function finetunedLite(dir: string, k: number): Promise<string> {
  const py = exportPython('--cv-finetune-lite');
  const out = path.join(dir, 'lite-tuned.onnx');
  if (process.env.BARET_TRAIN_REUSE_TUNED === '1' && existsSync(out)) return out;
  const env = { ...process.env, PYTHONHASHSEED: '0', OMP_NUM_THREADS: '2' };
  await run(py, [path.join(HERE, 'lite', 'tail_cache.py'), '--dir', LITE_DIR], env);
  await run(py, [path.join(HERE, 'lite', 'finetune_tail.py'), '--dir', LITE_DIR, 'export', '--exclude-cv-fold', String(k), '--onnx', out], env);
  return out;
}

/** The head classifier's entries of the model file. */
function headEntries(head: LiteHead): Pick<PpeModelFile, 'headEmbedding' | 'head' | 'headCheck'> & { backbone: PpeModelFile['backbones']['lite'] } {
  return { headEmbedding: HEAD_EMBEDDING_ID, head: head.model as PpeModelFile['head'], headCheck: head.check as PpeModelFile['headCheck'], backbone: { file: LITE_ONNX_FILE, sha256: head.onnxSha256 } };
}

/** What the model file records of the head classifier's fit. */
const headMetrics = (head: LiteHead, lite: LiteCropsMeta) => ({
  headCrops: { train: lite.head.filter((r) => r.fold === 'train').length, holdout: head.holdout.crops },
  headFit: head.report,
  notHead: head.notHead,
  headParityMaxProbabilityDifference: head.holdout.parity,
});

/**
 * `npm run train -- --export-onnx`: converts EfficientNet-Lite2 to ONNX again (lite/export_onnx.py,
 * with the Python of BARET_EXPORT_PYTHON, where lite/requirements-export.txt is installed: about
 * 6 GB) and checks that it writes the committed file's bytes (ADR 0028).
 */
async function exportOnnx(): Promise<void> {
  const py = exportPython('--export-onnx');
  const out = path.join(LITE_DIR, LITE_ONNX_FILE);
  await mkdir(LITE_DIR, { recursive: true });
  await run(py, [path.join(HERE, 'lite', 'export_onnx.py'), out]);
  const sha = async (f: string): Promise<string> => createHash('sha256').update(await readFile(f)).digest('hex');
  const [made, committed] = await Promise.all([sha(out), sha(LITE_ONNX)]);
  if (made !== committed) throw new Error(`the export (${made}) is not the committed ${LITE_ONNX} (${committed})`);
  log(`${LITE_ONNX_FILE}: the export is the committed file (sha256 ${made})\n`);
}

/**
 * The box → head geometry of the committed head detector's crops, from the calibration the
 * committed model file records (what a full run measures on the person detections, which the
 * cross-validation and `--head-detector-only` do not compute); checked against the committed detector.
 */
async function committedCrop(): Promise<ReturnType<typeof boxGeometry>> {
  const committed = JSON.parse(await readFile(MODEL_PATH, 'utf8')) as PpeModelFile;
  const cal = committed.metrics?.calibration as Calibration | undefined;
  if (!cal) throw new Error(`${MODEL_PATH} records no calibration: run a full npm run train`);
  const crop = boxGeometry(cal);
  const detector = JSON.parse(await readFile(HEAD_DETECTOR_PATH, 'utf8')) as { crop: unknown };
  if (JSON.stringify(detector.crop) !== JSON.stringify(crop)) throw new Error(`the calibration of ${MODEL_PATH} gives the crop ${JSON.stringify(crop)}, the committed head detector has ${JSON.stringify(detector.crop)}`);
  return crop;
}

/**
 * `npm run train -- --head-detector-only`: trains the head detector alone (on the subsets a
 * full run does) with the committed calibration's crop geometry, and writes it; nothing else changes.
 */
async function headDetectorOnly(py: string, photos: TrainingPhoto[], started: number): Promise<void> {
  const heads = await trainHeadDetector(py, run, photos, await committedCrop(), log);
  await writeFile(path.join(path.dirname(HEAD_DETECTOR_PATH), heads.file.weights.file), heads.weights);
  await writeFile(HEAD_DETECTOR_PATH, JSON.stringify(heads.file) + '\n');
  console.log(JSON.stringify({ model: HEAD_DETECTOR_PATH, seconds: Math.round((performance.now() - started) / 1000), holdout: heads.file.metrics!.holdoutImageLevel, parity: heads.file.metrics!.parityMaxHeatmapDifference }, null, 2));
}

/**
 * `npm run train -- --from-review DIR`: the fine-tune on a reviewed set (fromReview.ts), then
 * `npm run eval` with the shipped and the tuned model on the sets nobody reviewed (unless `--no-eval`;
 * `--no-videos` leaves out the made videos). Prints the before/after table and one JSON line.
 */
async function fineTuneFromReview(dir: string | undefined): Promise<void> {
  if (!dir || dir.startsWith('--')) throw new Error('--from-review needs the folder of an unzipped reviewed set (GET /orgs/{id}/reviews/export)');
  const outArg = process.argv.indexOf('--out');
  const out = outArg >= 0 ? path.resolve(process.argv[outArg + 1] ?? '') : FROM_REVIEW_OUT;
  const report = await trainFromReview(path.resolve(dir), out, sizeOf, log);
  log(`\nthe tuned model: ${report.model} (${report.seconds} s; the shipped model is unchanged)\n`);
  for (const kind of ['head', 'torso'] as const) {
    const [b, a] = [report.before[kind], report.after[kind]];
    log(`${kind}: shared hold-out accuracy ${String(b.holdout.accuracy)} → ${String(a.holdout.accuracy)} (${JSON.stringify(b.holdout.right)} → ${JSON.stringify(a.holdout.right)}); reviewed crops ${String(b.reviewed.accuracy)} → ${String(a.reviewed.accuracy)}\n`);
  }
  const evaluation: Record<string, { before: unknown; after: unknown }> = {};
  if (!process.argv.includes('--no-eval')) {
    const rows = ['| set | measure | before (shipped) | after (tuned) |', '|---|---|---|---|'];
    for (const set of evalSets(!process.argv.includes('--no-videos'))) {
      log(`npm run eval on ${set.name}, before and after…\n`);
      const before = await evalLine(set, null, log);
      const after = await evalLine(set, report.model, log);
      evaluation[set.name] = { before, after };
      rows.push(...compareRows(set.name, before, after));
    }
    log(`\n${rows.join('\n')}\n`);
  }
  console.log(JSON.stringify({ fromReview: report, eval: evaluation }));
}

async function main(): Promise<void> {
  const started = performance.now();
  const cv = process.argv.includes('--cv');
  log(`training data: ${TRAINING_DIR}\n`);
  if (process.argv.includes('--export-onnx')) return exportOnnx();
  const fromReview = process.argv.indexOf('--from-review');
  if (fromReview >= 0) return fineTuneFromReview(process.argv[fromReview + 1]);
  let photos = await listTrainingPhotos(sizeOf);
  if (process.argv.includes('--head-detector-only')) return headDetectorOnly(await python(), photos, started);
  const lite = await dumpLiteCrops(photos, SEED, log);
  // Synthetic pictures' crops: more background for the head check (issue 38).
  await dumpPatternCrops(SEED, log);
  const py = await python();
  if (cv) return crossValidate(py, photos, lite);
  const head = await trainLiteHead(run, py, lite, LITE_ONNX, path.join(LITE_DIR, 'classifier-head.json'), log);
  if (process.argv.includes('--head-only')) {
    // The head classifier and head check alone, the torso classifier and the head detector kept as
    // committed; with --keep-head, the committed head classifier too (only the head check is new).
    const committed = JSON.parse(await readFile(MODEL_PATH, 'utf8')) as PpeModelFile;
    const { backbone, ...entries } = headEntries(head);
    const keep = process.argv.includes('--keep-head');
    const file: PpeModelFile = {
      ...committed,
      version: MODEL_VERSION,
      ...(keep ? { headEmbedding: committed.headEmbedding ?? EMBEDDING_ID, headCheck: entries.headCheck } : entries),
      backbones: { ...committed.backbones, lite: backbone },
      thresholds: { ...committed.thresholds, ...(keep ? {} : { hatSeen: head.thresholds.hat.threshold, noHatSeen: head.thresholds.noHat.threshold }), notHead: head.notHead.threshold },
      metrics: {
        ...committed.metrics,
        ...(keep ? { notHead: head.notHead } : { ...headMetrics(head, lite), holdout: { ...(committed.metrics?.holdout as object), headAccuracy: head.holdout.accuracy, hat: head.thresholds.hat, noHat: head.thresholds.noHat } }),
      },
    };
    await writeFile(MODEL_PATH, JSON.stringify(file) + '\n');
    console.log(JSON.stringify({ model: MODEL_PATH, seconds: Math.round((performance.now() - started) / 1000), thresholds: file.thresholds, holdout: head.holdout }, null, 2));
    return;
  }
  // BARET_TRAIN_CACHED_ONLY=1: a quick run on the photos whose detections are already cached.
  if (process.env.BARET_TRAIN_CACHED_ONLY === '1') {
    const cached = (await readJsonCache<Detections>('detections.json')) ?? {};
    photos = photos.filter((p) => photoKey(p) in cached);
  }
  const detections = await detectAll(photos, log);
  const cal = calibrate(photos, detections);
  log(`calibration: ${JSON.stringify(cal)}\n`);
  const meta: CropsMeta = await dumpCrops(photos, detections, cal, SEED, CROPS_DIR, process.env.BARET_TRAIN_FRESH === '1', log);

  // Head and torso: each backbone fine-tuned with its classifier (ADR 0016); the head check (ADR 0028) from the Lite2 fit above.
  const models = {} as Record<CropKind, MlpModel>;
  const weightsOf = {} as Record<CropKind, Buffer>;
  const scored = {} as Record<CropKind, Array<{ p: number[]; row: CropRow }>>;
  const parity: Record<string, number> = { headCheck: head.holdout.parity };
  const reports = {} as Record<CropKind, Tuned['report']>;
  for (const kind of ['head', 'torso'] as const) {
    const tuned = await fineTune(py, kind);
    const weights = await readFile(path.join(CROPS_DIR, `backbone-${kind}.bin`));
    const mlp = rounded(tuned.model);
    const { p, worst } = await tfjsProbabilities(kind, weights, mlp, tuned);
    log(`${kind}: tfjs and TensorFlow probabilities differ by at most ${worst.toExponential(2)} on ${p.length} hold-out crops\n`);
    if (!(worst <= PARITY_TOLERANCE)) throw new Error(`${kind}: tfjs differs from TensorFlow by ${worst} (more than ${PARITY_TOLERANCE}); nothing written`);
    models[kind] = mlp;
    weightsOf[kind] = weights;
    scored[kind] = p.map((q, i) => ({ p: q, row: meta[kind][tuned.holdout.index[i]!]! }));
    parity[kind] = Number(worst.toExponential(2));
    reports[kind] = tuned.report;
  }
  const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

  const of = (kind: CropKind, c: number, gate: (r: CropRow) => boolean = () => true): Curve[] =>
    curve(scored[kind].map((s) => ({ p: s.p[c]!, positive: s.row.label === c, passes: gate(s.row) })));
  // Hi-vis is `seen` only on a torso with enough fluorescent pixels (ppe.ts), so its threshold is
  // picked on the hold-out torsos as the run time judges them: p(vest) ≥ t and the gate passed.
  const fluorescentGate = (r: CropRow): boolean => passesFluorescentGate(r.fluorescent ?? 0);
  const picks = { ...headThresholds(scored.head), vest: pick(of('torso', 0, fluorescentGate), 0.9), none: pick(of('torso', 1), 0.9) };

  const file: PpeModelFile = {
    version: MODEL_VERSION,
    embedding: EMBEDDING_ID,
    headEmbedding: EMBEDDING_ID,
    head: models.head as PpeModelFile['head'],
    headCheck: head.check as PpeModelFile['headCheck'],
    backbones: { head: { sha256: sha(weightsOf.head) }, torso: { sha256: sha(weightsOf.torso) }, lite: { file: LITE_ONNX_FILE, sha256: head.onnxSha256 } },
    torso: models.torso as PpeModelFile['torso'],
    thresholds: { hatSeen: picks.hat.threshold, noHatSeen: picks.noHat.threshold, vestSeen: picks.vest.threshold, vestAbsent: picks.none.threshold, notHead: head.notHead.threshold },
    metrics: {
      seed: SEED,
      epochs: EPOCHS,
      averageFrom: AVERAGE_FROM,
      photos: photos.length,
      holdoutPhotos: photos.filter((p) => p.fold === 'holdout').length,
      ...counts('head', meta.head),
      ...counts('torso', meta.torso),
      notHead: head.notHead,
      calibration: cal,
      parityMaxProbabilityDifference: parity,
      fineTuning: reports,
      holdout: {
        headAccuracy: round(accuracy(scored.head)),
        torsoAccuracy: round(accuracy(scored.torso)),
        hat: picks.hat,
        noHat: picks.noHat,
        vest: picks.vest,
        vestWithoutGate: pick(of('torso', 0), 0.9),
        none: picks.none,
      },
    },
  };
  const heads = await trainHeadDetector(py, run, photos, boxGeometry(cal), log);
  for (const kind of ['head', 'torso'] as const) await writeFile(backboneWeightsPath(kind), weightsOf[kind]);
  await writeFile(MODEL_PATH, JSON.stringify(file) + '\n');
  await writeFile(path.join(path.dirname(HEAD_DETECTOR_PATH), heads.file.weights.file), heads.weights);
  await writeFile(HEAD_DETECTOR_PATH, JSON.stringify(heads.file) + '\n');
  const headDetector = { model: HEAD_DETECTOR_PATH, holdout: heads.file.metrics!.holdoutImageLevel, parity: heads.file.metrics!.parityMaxHeatmapDifference };
  console.log(JSON.stringify({ model: MODEL_PATH, seconds: Math.round((performance.now() - started) / 1000), thresholds: file.thresholds, holdout: file.metrics!.holdout, parity, headDetector }, null, 2));
}

await main();
