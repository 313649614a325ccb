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
 * `../shared/data/ppe-photos` (the validation set) is never read here.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEAD_DETECTOR_PATH } from '../../services/analysis/src/engine/headDetector.js';
import { passesFluorescentGate } from '../../services/analysis/src/engine/ppe.js';
import { backboneWeightsPath, embedPixels, loadBackbone, type CropKind } from '../../services/analysis/src/engine/ppeEmbedding.js';
import { EMBEDDING_ID, MODEL_PATH, MODEL_VERSION, predictMlp, type MlpModel, type PpeModelFile } from '../../services/analysis/src/engine/ppeModel.js';
import { CACHE_DIR, listTrainingPhotos, readJsonCache, TRAINING_DIR } from './data.js';
import { detectAll, photoKey, sizeOf, type Detections } from './detect.js';
import { bytesPerCrop, dumpCrops, type CropRow, type CropsMeta } from './finetune/dump-crops.js';
import { trainHeadDetector } from './heads/heads.js';
import { calibrate } from './samples.js';

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

/** Fine-tunes one kind (or, with BARET_TRAIN_REUSE_TUNED=1, takes an earlier run's output of the same epochs and averaging). */
async function fineTune(py: string, kind: CropKind): Promise<Tuned> {
  const file = path.join(CROPS_DIR, `classifier-${kind}.json`);
  if (process.env.BARET_TRAIN_REUSE_TUNED === '1') {
    const earlier = await readFile(file, 'utf8').then((s) => JSON.parse(s) as Tuned, () => null);
    if (earlier?.report.epochs.length === EPOCHS[kind] && earlier.report.averaged?.epochs === EPOCHS[kind] - AVERAGE_FROM + 1 && existsSync(path.join(CROPS_DIR, `backbone-${kind}.bin`))) {
      log(`${kind}: fine-tuned backbone from ${CROPS_DIR}\n`);
      return earlier;
    }
  }
  const args = [path.join(FINETUNE_DIR, 'finetune.py'), '--kind', kind, '--epochs', String(EPOCHS[kind]), '--average-from', String(AVERAGE_FROM), '--out', CROPS_DIR];
  await run(py, args, { ...process.env, PYTHONHASHSEED: '0', TF_CPP_MIN_LOG_LEVEL: '2' });
  return JSON.parse(await readFile(file, 'utf8')) as Tuned;
}

/** The classifier with its numbers rounded to 6 significant digits, as committed. */
function rounded(model: MlpModel): MlpModel {
  return {
    classes: model.classes,
    featureMean: model.featureMean.map(round),
    featureStd: model.featureStd.map(round),
    layers: model.layers.map((l) => ({ weights: l.weights.map((row) => row.map(round)), bias: l.bias.map(round) })),
  };
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

interface Curve {
  threshold: number;
  precision: number;
  recall: number;
}

/** A hold-out crop as the run time would judge it: its probability of the class, whether it is one, whether it passes the class's gate. */
interface Scored {
  p: number;
  positive: boolean;
  passes: boolean;
}

/** Precision and recall of "the class" when p ≥ t (and the crop passes its gate, as at run time). */
function curve(scored: Scored[]): Curve[] {
  const positives = scored.filter((s) => s.positive).length;
  const out: Curve[] = [];
  for (let t = 0.5; t < 0.991; t += 0.01) {
    const sel = scored.filter((s) => s.p >= t && s.passes);
    const tp = sel.filter((s) => s.positive).length;
    out.push({ threshold: round(t), precision: sel.length ? tp / sel.length : 1, recall: positives ? tp / positives : 0 });
  }
  return out;
}

/** Lowest threshold whose hold-out precision reaches `target` (else the most precise one). */
function pick(c: Curve[], target: number): Curve {
  return c.find((p) => p.precision >= target) ?? [...c].sort((a, b) => b.precision - a.precision)[0]!;
}

function counts(kind: CropKind, rows: CropRow[]): Record<string, number> {
  const n = (f: (r: CropRow) => boolean): number => rows.filter(f).length;
  return {
    [`${kind}_train_original`]: n((r) => r.fold === 'train' && !r.augmented),
    [`${kind}_train_with_augmented`]: n((r) => r.fold === 'train'),
    [`${kind}_holdout`]: n((r) => r.fold === 'holdout'),
    [`${kind}_from_detector`]: n((r) => r.source === 'detector' && !r.augmented),
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  log(`training data: ${TRAINING_DIR}\n`);
  let photos = await listTrainingPhotos(sizeOf);
  // BARET_TRAIN_CACHED_ONLY=1: a quick run on the photos whose detections are already cached.
  if (process.env.BARET_TRAIN_CACHED_ONLY === '1') {
    const cached = (await readJsonCache<Detections>('detections.json')) ?? {};
    photos = photos.filter((p) => photoKey(p) in cached);
  }
  const detections = await detectAll(photos, log);
  const cal = calibrate(photos, detections);
  log(`calibration: ${JSON.stringify(cal)}\n`);
  const meta: CropsMeta = await dumpCrops(photos, detections, cal, SEED, CROPS_DIR, process.env.BARET_TRAIN_FRESH === '1', log);
  const py = await python();

  const models = {} as Record<CropKind, MlpModel>;
  const backbones = {} as PpeModelFile['backbones'];
  const weightsOf = {} as Record<CropKind, Buffer>;
  const scored = {} as Record<CropKind, Array<{ p: number[]; row: CropRow }>>;
  const parity = {} as Record<CropKind, number>;
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
    backbones[kind] = { sha256: createHash('sha256').update(weights).digest('hex') };
    scored[kind] = p.map((q, i) => ({ p: q, row: meta[kind][tuned.holdout.index[i]!]! }));
    parity[kind] = Number(worst.toExponential(2));
    reports[kind] = tuned.report;
  }

  const of = (kind: CropKind, c: number, gate: (r: CropRow) => boolean = () => true): Curve[] =>
    curve(scored[kind].map((s) => ({ p: s.p[c]!, positive: s.row.label === c, passes: gate(s.row) })));
  // Hi-vis is `seen` only on a torso with enough fluorescent pixels (ppe.ts), so its threshold is
  // picked on the hold-out torsos as the run time judges them: p(vest) ≥ t and the gate passed.
  const fluorescentGate = (r: CropRow): boolean => passesFluorescentGate(r.fluorescent ?? 0);
  const picks = { hat: pick(of('head', 0), 0.95), bare: pick(of('head', 1), 0.9), vest: pick(of('torso', 0, fluorescentGate), 0.9), none: pick(of('torso', 1), 0.9) };
  const accuracy = (kind: CropKind): number => scored[kind].filter((s) => s.p.indexOf(Math.max(...s.p)) === s.row.label).length / Math.max(1, scored[kind].length);

  const file: PpeModelFile = {
    version: MODEL_VERSION,
    embedding: EMBEDDING_ID,
    backbones,
    head: models.head as PpeModelFile['head'],
    torso: models.torso as PpeModelFile['torso'],
    thresholds: { hatSeen: picks.hat.threshold, bareSeen: picks.bare.threshold, vestSeen: picks.vest.threshold, vestAbsent: picks.none.threshold },
    metrics: {
      seed: SEED,
      epochs: EPOCHS,
      averageFrom: AVERAGE_FROM,
      photos: photos.length,
      holdoutPhotos: photos.filter((p) => p.fold === 'holdout').length,
      ...counts('head', meta.head),
      ...counts('torso', meta.torso),
      calibration: cal,
      parityMaxProbabilityDifference: parity,
      fineTuning: reports,
      holdout: {
        headAccuracy: round(accuracy('head')),
        torsoAccuracy: round(accuracy('torso')),
        hat: picks.hat,
        bare: picks.bare,
        vest: picks.vest,
        vestWithoutGate: pick(of('torso', 0), 0.9),
        none: picks.none,
      },
    },
  };
  const heads = await trainHeadDetector(py, run, photos, cal, log);
  for (const kind of ['head', 'torso'] as const) await writeFile(backboneWeightsPath(kind), weightsOf[kind]);
  await writeFile(MODEL_PATH, JSON.stringify(file) + '\n');
  await writeFile(path.join(path.dirname(HEAD_DETECTOR_PATH), heads.file.weights.file), heads.weights);
  await writeFile(HEAD_DETECTOR_PATH, JSON.stringify(heads.file) + '\n');
  const headDetector = { model: HEAD_DETECTOR_PATH, holdout: heads.file.metrics!.holdoutImageLevel, parity: heads.file.metrics!.parityMaxHeatmapDifference };
  console.log(JSON.stringify({ model: MODEL_PATH, seconds: Math.round((performance.now() - started) / 1000), thresholds: file.thresholds, holdout: file.metrics!.holdout, parity, headDetector }, null, 2));
}

await main();
