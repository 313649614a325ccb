/**
 * `npm run train`: reproduces `services/analysis/models/ppe-classifier.json` from
 * `../shared/data/ppe-training` (read in place). Steps: detect persons on every photo with the
 * analyzer's detector (cached in tmp/ppe-train), cut head and torso samples (samples.ts), train one
 * small MLP per part with @tensorflow/tfjs-layers on the CPU backend (fixed seeds, own seeded
 * shuffling), pick the verdict thresholds on the hold-out fold (15 % of the photos, by name hash),
 * check the plain-TypeScript forward pass against tfjs, and write the weights.
 *
 * `../shared/data/ppe-photos` (the validation set) is never read here.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import * as tfl from '@tensorflow/tfjs-layers';
import { passesFluorescentGate } from '../../services/analysis/src/engine/ppe.js';
import { EMBEDDING_ID, MODEL_PATH, predictMlp, type MlpModel, type PpeModelFile } from '../../services/analysis/src/engine/ppeModel.js';
import { CACHE_DIR, listTrainingPhotos, readJsonCache, TRAINING_DIR } from './data.js';
import { detectAll, photoKey, sizeOf, type Detections } from './detect.js';
import { buildSamples, calibrate, rng, type Sample } from './samples.js';

const SEED = 11;
const EPOCHS = Number(process.env.BARET_TRAIN_EPOCHS ?? 25);
const HIDDEN = 32;
const BATCH = 64;
/** Bump when the samples' features change (the cache of samples is keyed by it). */
const SAMPLES_VERSION = 4;

const log = (s: string): void => {
  process.stderr.write(s);
};

function standardise(train: Sample[]): { mean: number[]; std: number[] } {
  const d = train[0]!.features.length;
  const mean = new Array<number>(d).fill(0);
  const sq = new Array<number>(d).fill(0);
  for (const s of train) for (let i = 0; i < d; i++) mean[i]! += s.features[i]!;
  for (let i = 0; i < d; i++) mean[i]! /= train.length;
  for (const s of train) for (let i = 0; i < d; i++) sq[i]! += (s.features[i]! - mean[i]!) ** 2;
  const std = sq.map((v) => Math.max(1e-4, Math.sqrt(v / train.length)));
  return { mean, std };
}

function shuffled<T>(items: T[], rand: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

const round = (v: number): number => Number(v.toPrecision(6));

/**
 * The samples, from `tmp/ppe-train/samples-<version>.bin` when a run with the same photos and
 * sample code made them (BARET_TRAIN_FRESH=1 rebuilds them).
 */
async function cachedSamples(photoCount: number, build: () => Promise<{ head: Sample[]; torso: Sample[] }>): Promise<{ head: Sample[]; torso: Sample[] }> {
  const file = path.join(CACHE_DIR, `samples-v${SAMPLES_VERSION}-${photoCount}.bin`);
  if (process.env.BARET_TRAIN_FRESH !== '1') {
    const buf = await readFile(file).catch(() => null);
    if (buf) {
      const metaLength = buf.readUInt32LE(0);
      const meta = JSON.parse(buf.subarray(4, 4 + metaLength).toString('utf8')) as Record<'head' | 'torso', Array<Omit<Sample, 'features'> & { n: number }>>;
      let offset = 4 + metaLength;
      const read = (list: Array<Omit<Sample, 'features'> & { n: number }>): Sample[] =>
        list.map(({ n, ...rest }) => {
          const features = new Float32Array(buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + offset + n * 4));
          offset += n * 4;
          return { ...rest, features };
        });
      log(`samples from ${file}\n`);
      return { head: read(meta.head), torso: read(meta.torso) };
    }
  }
  const samples = await build();
  const meta = JSON.stringify({
    head: samples.head.map(({ features, ...rest }) => ({ ...rest, n: features.length })),
    torso: samples.torso.map(({ features, ...rest }) => ({ ...rest, n: features.length })),
  });
  const header = Buffer.alloc(4);
  header.writeUInt32LE(Buffer.byteLength(meta), 0);
  const bodies = [...samples.head, ...samples.torso].map((s) => Buffer.from(s.features.buffer, s.features.byteOffset, s.features.byteLength));
  await mkdir(CACHE_DIR, { recursive: true });
  await writeFile(file, Buffer.concat([header, Buffer.from(meta), ...bodies]));
  return samples;
}

/** Trains one MLP (standardise → dense relu → dropout → dense softmax) on the train fold. */
async function trainMlp(name: string, samples: Sample[], classes: string[]): Promise<MlpModel> {
  const train = samples.filter((s) => s.fold === 'train');
  const { mean, std } = standardise(train);
  const d = mean.length;
  const toX = (list: Sample[]): tf.Tensor2D => {
    const x = new Float32Array(list.length * d);
    list.forEach((s, r) => {
      for (let i = 0; i < d; i++) x[r * d + i] = (s.features[i]! - mean[i]!) / std[i]!;
    });
    return tf.tensor2d(x, [list.length, d]);
  };
  // Balanced classes: each class weighs as much in the loss.
  const counts = classes.map((_, c) => train.filter((s) => s.label === c).length);
  const classWeight = Object.fromEntries(counts.map((n, c) => [c, train.length / (classes.length * n)]));
  const model = tfl.sequential();
  model.add(tfl.layers.dense({ inputShape: [d], units: HIDDEN, activation: 'relu', kernelInitializer: tfl.initializers.glorotUniform({ seed: SEED }), kernelRegularizer: tfl.regularizers.l2({ l2: 1e-3 }) }));
  model.add(tfl.layers.dropout({ rate: 0.3, seed: SEED }));
  model.add(tfl.layers.dense({ units: classes.length, activation: 'softmax', kernelInitializer: tfl.initializers.glorotUniform({ seed: SEED + 1 }) }));
  model.compile({ optimizer: tf.train.adam(1e-3), loss: 'categoricalCrossentropy', metrics: ['accuracy'] });
  const rand = rng(SEED);
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    const order = shuffled(train, rand);
    const x = toX(order);
    const y = tf.oneHot(tf.tensor1d(order.map((s) => s.label), 'int32'), classes.length);
    const h = await model.fit(x, y, { epochs: 1, batchSize: BATCH, shuffle: false, verbose: 0, classWeight });
    tf.dispose([x, y]);
    log(`\r${name}: epoch ${epoch + 1}/${EPOCHS} loss ${Number(h.history.loss![0]).toFixed(4)} acc ${Number(h.history.acc![0]).toFixed(3)}`);
  }
  log('\n');
  const layers = model.layers
    .filter((l) => l.getClassName() === 'Dense')
    .map((l) => {
      const [k, b] = l.getWeights();
      const kernel = k!.arraySync() as number[][]; // [in][out]
      const bias = b!.arraySync() as number[];
      return { weights: bias.map((_, o) => kernel.map((row) => round(row[o]!))), bias: bias.map(round) };
    });
  const mlp: MlpModel = { classes, featureMean: mean.map(round), featureStd: std.map(round), layers };
  // The plain forward pass must agree with tfjs on the hold-out samples.
  const probe = samples.filter((s) => s.fold === 'holdout').slice(0, 50);
  if (probe.length > 0) {
    const x = toX(probe);
    const tfOut = (model.predict(x) as tf.Tensor).arraySync() as number[][];
    x.dispose();
    const worst = Math.max(...probe.map((s, i) => Math.max(...predictMlp(mlp, s.features).map((p, c) => Math.abs(p - tfOut[i]![c]!)))));
    if (worst > 1e-3) throw new Error(`${name}: plain forward pass differs from tfjs by ${worst}`);
  }
  return mlp;
}

interface Curve {
  threshold: number;
  precision: number;
  recall: number;
}

/**
 * Precision and recall of "class c" when p(c) ≥ t (and the sample passes `gate`, as at run time),
 * on un-augmented hold-out samples.
 */
function curve(model: MlpModel, holdout: Sample[], c: number, gate: (s: Sample) => boolean = () => true): Curve[] {
  const scored = holdout.map((s) => ({ p: predictMlp(model, s.features)[c]!, pos: s.label === c, passes: gate(s) }));
  const positives = scored.filter((s) => s.pos).length;
  const out: Curve[] = [];
  for (let t = 0.5; t < 0.991; t += 0.01) {
    const sel = scored.filter((s) => s.p >= t && s.passes);
    const tp = sel.filter((s) => s.pos).length;
    out.push({ threshold: round(t), precision: sel.length ? tp / sel.length : 1, recall: positives ? tp / positives : 0 });
  }
  return out;
}

/** Lowest threshold whose hold-out precision reaches `target` (else the most precise one). */
function pick(c: Curve[], target: number): Curve {
  return c.find((p) => p.precision >= target) ?? [...c].sort((a, b) => b.precision - a.precision)[0]!;
}

function summary(name: string, samples: Sample[]): Record<string, number> {
  const n = (f: (s: Sample) => boolean): number => samples.filter(f).length;
  return {
    [`${name}_train_original`]: n((s) => s.fold === 'train' && !s.augmented),
    [`${name}_train_with_augmented`]: n((s) => s.fold === 'train'),
    [`${name}_holdout`]: n((s) => s.fold === 'holdout'),
    [`${name}_from_detector`]: n((s) => s.source === 'detector' && !s.augmented),
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
  const { head, torso } = await cachedSamples(photos.length, () => buildSamples(photos, detections, cal, SEED, log));
  // The embeddings ran on the detector's WASM backend; the classifiers train on the CPU backend.
  await tf.setBackend('cpu');
  tf.util.assert(tf.getBackend() === 'cpu', () => 'cpu backend');
  const headModel = await trainMlp('head', head, ['hat', 'bare']);
  const torsoModel = await trainMlp('torso', torso, ['vest', 'none']);
  const hold = (list: Sample[]): Sample[] => list.filter((s) => s.fold === 'holdout');
  const hat = curve(headModel, hold(head), 0);
  const bare = curve(headModel, hold(head), 1);
  // Hi-vis is `seen` only on a torso with enough fluorescent pixels (ppe.ts), so its threshold is
  // picked on the hold-out torsos as the run time judges them: p(vest) ≥ t and the gate passed.
  const fluorescentGate = (s: Sample): boolean => passesFluorescentGate(s.fluorescent ?? 0);
  const vest = curve(torsoModel, hold(torso), 0, fluorescentGate);
  const vestWithoutGate = pick(curve(torsoModel, hold(torso), 0), 0.9);
  const none = curve(torsoModel, hold(torso), 1);
  const picks = { hat: pick(hat, 0.95), bare: pick(bare, 0.9), vest: pick(vest, 0.9), none: pick(none, 0.9) };
  const accuracy = (m: MlpModel, list: Sample[]): number =>
    list.filter((s) => {
      const p = predictMlp(m, s.features);
      return p.indexOf(Math.max(...p)) === s.label;
    }).length / Math.max(1, list.length);
  const file: PpeModelFile = {
    version: 1,
    embedding: EMBEDDING_ID,
    head: headModel as PpeModelFile['head'],
    torso: torsoModel as PpeModelFile['torso'],
    thresholds: { hatSeen: picks.hat.threshold, bareSeen: picks.bare.threshold, vestSeen: picks.vest.threshold, vestAbsent: picks.none.threshold },
    metrics: {
      seed: SEED,
      epochs: EPOCHS,
      hidden: HIDDEN,
      photos: photos.length,
      holdoutPhotos: photos.filter((p) => p.fold === 'holdout').length,
      ...summary('head', head),
      ...summary('torso', torso),
      calibration: cal,
      holdout: {
        headAccuracy: round(accuracy(headModel, hold(head))),
        torsoAccuracy: round(accuracy(torsoModel, hold(torso))),
        hat: picks.hat,
        bare: picks.bare,
        vest: picks.vest,
        vestWithoutGate,
        none: picks.none,
      },
    },
  };
  await writeFile(MODEL_PATH, JSON.stringify(file) + '\n');
  console.log(JSON.stringify({ model: MODEL_PATH, seconds: Math.round((performance.now() - started) / 1000), metrics: file.metrics, thresholds: file.thresholds }, null, 2));
}

await main();
