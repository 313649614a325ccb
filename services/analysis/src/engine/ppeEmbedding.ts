/**
 * Appearance embeddings of head and torso crops for the learned PPE classifier: the crop, resized
 * to a fixed size, goes through the MobileNetV3 backbone of the CenterNet person detector that
 * ships with `@vladmandic/human` (the topology of its `centernet.json`), with weights fine-tuned
 * on the training photos for that crop kind (`services/analysis/models/ppe-backbone-head.bin` and
 * `-torso.bin`, written by `npm run train`, scripts/train/finetune/). The embedding is the global
 * averages its squeeze-and-excite blocks compute at four depths (96 + 384 + 528 + 720 channels)
 * followed by the average of its last layer (480 channels).
 *
 * Runs on the tfjs backend the detector set up (WASM), in whatever thread calls it: the detector
 * pool's threads at run time, the training script's own thread in `npm run train`.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import * as tfconv from '@tensorflow/tfjs-converter';
import { localModelDir, readModelArtifacts, warmUpDetector, type RawImage } from './detector.js';
import { resampleCrop, type Rect } from './ppeFeatures.js';
import { loadPpeModel, MODEL_PATH, type PpeModelFile } from './ppeModel.js';

/** Input sizes of the backbone (width × height) per crop kind. */
export const EMBED_INPUT = { head: { width: 96, height: 96 }, torso: { width: 80, height: 112 } } as const;
export type CropKind = keyof typeof EMBED_INPUT;

/** The squeeze-and-excite means read, shallow to deep (graph node names): already pooled. */
const SE_MEANS = [5, 10, 12, 14].map((i) => `tower_0/MobilenetV3/expanded_conv_${i}/squeeze_excite/Mean`);
/** The backbone's last layer (pooled here). */
const LAST_LAYER = 'tower_0/extern1/hard_swish/mul_1';
/** Graph nodes the embedding is made of, in order: {@link SE_MEANS}, then {@link LAST_LAYER} (averaged over space). */
export const EMBEDDING_NODES = [...SE_MEANS, LAST_LAYER];
/** Length of one embedding (the channels of {@link EMBEDDING_NODES}). */
export const EMBEDDING_SIZE = 96 + 384 + 528 + 720 + 480;
/** Crops per backbone call. */
const BATCH = 16;

/** The committed tuned weights of one crop kind's backbone (next to the model file). */
export function backboneWeightsPath(kind: CropKind, modelPath = MODEL_PATH): string {
  return path.join(path.dirname(modelPath), `ppe-backbone-${kind}.bin`);
}

/**
 * The CenterNet graph's artifacts with its input opened to any batch and size: the backbone is
 * fully convolutional, only the detection head (never run here) needs 512×512. The declared
 * 512×512 signature, which would be checked against every input, is dropped.
 */
export async function backboneArtifacts(): Promise<tf.io.ModelArtifacts> {
  const artifacts = await readModelArtifacts(path.join(localModelDir(), 'centernet.json'));
  const topology = artifacts.modelTopology as { node: Array<{ op: string; attr?: { shape?: { shape?: { dim: Array<{ size: string }> } } } }> };
  for (const node of topology.node) {
    if (node.op === 'Placeholder' && node.attr?.shape?.shape) node.attr.shape.shape.dim = [{ size: '-1' }, { size: '-1' }, { size: '-1' }, { size: '3' }];
  }
  return { ...artifacts, signature: undefined };
}

/** The backbone graph with the given weights (a weights file for centernet.json's manifest), else with the person detector's own. */
export async function loadBackbone(weights?: Uint8Array): Promise<tfconv.GraphModel> {
  await warmUpDetector();
  const artifacts = await backboneArtifacts();
  if (!weights) return tfconv.loadGraphModel({ load: async () => artifacts });
  const weightData = weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer;
  return tfconv.loadGraphModel({ load: async () => ({ ...artifacts, weightData }) });
}

/**
 * Throws unless `weights` (read from `file`) are the tuned backbone of `kind` that `model` was
 * trained with: a classifier on another backbone's embedding would judge at random.
 */
export function verifyBackboneWeights(kind: CropKind, weights: Uint8Array, file: string, model: PpeModelFile = loadPpeModel()): void {
  const expected = model.backbones[kind]?.sha256 ?? '(none named)';
  const actual = createHash('sha256').update(weights).digest('hex');
  if (actual !== expected) throw new Error(`${file} (sha256 ${actual}) is not the ${kind} backbone the PPE model was trained with (${expected}): run npm run train`);
}

/** Loads the committed tuned backbone of `kind`, once checked against the model file. */
async function loadCommittedBackbone(kind: CropKind): Promise<tfconv.GraphModel> {
  const file = backboneWeightsPath(kind);
  const weights = await readFile(file);
  verifyBackboneWeights(kind, weights, file);
  return loadBackbone(weights);
}

const models = new Map<CropKind, Promise<tfconv.GraphModel>>();

function backbone(kind: CropKind): Promise<tfconv.GraphModel> {
  let model = models.get(kind);
  if (!model) {
    model = loadCommittedBackbone(kind).catch((err: unknown) => {
      models.delete(kind);
      throw err;
    });
    models.set(kind, model);
  }
  return model;
}

/**
 * Embeddings (length {@link EMBEDDING_SIZE}) of `count` crops of one kind given as pixels
 * (0..255, NHWC at the kind's {@link EMBED_INPUT} size), through `model`.
 */
export async function embedPixels(model: tfconv.GraphModel, kind: CropKind, pixels: Float32Array, count: number): Promise<Float32Array[]> {
  const { width, height } = EMBED_INPUT[kind];
  // Each node averaged over space (the squeeze-and-excite means already are), side by side: one row per crop.
  const embedded = tf.tidy(() => {
    const outputs = model.execute(tf.tensor4d(pixels, [count, height, width, 3]), EMBEDDING_NODES) as tf.Tensor[];
    return tf.concat(outputs.map((t) => tf.mean(t, [1, 2])), 1);
  });
  try {
    if (embedded.shape[1] !== EMBEDDING_SIZE) throw new Error(`backbone embedding has ${String(embedded.shape[1])} values, expected ${EMBEDDING_SIZE}`);
    const values = (await embedded.data()) as Float32Array;
    return Array.from({ length: count }, (_, i) => values.slice(i * EMBEDDING_SIZE, (i + 1) * EMBEDDING_SIZE));
  } finally {
    embedded.dispose();
  }
}

/** One embedding request: a rectangle of an image, optionally mirrored. */
export interface EmbedRequest {
  img: RawImage;
  rect: Rect;
  flip?: boolean;
}

/** Embeddings of crops of one kind through that kind's tuned backbone, in the order asked (the classifier's inputs). */
export async function embedCrops(kind: CropKind, requests: readonly EmbedRequest[]): Promise<Float32Array[]> {
  if (requests.length === 0) return [];
  const model = await backbone(kind);
  const { width, height } = EMBED_INPUT[kind];
  const out: Float32Array[] = [];
  for (let start = 0; start < requests.length; start += BATCH) {
    const batch = requests.slice(start, start + BATCH);
    const pixels = new Float32Array(batch.length * width * height * 3);
    batch.forEach((r, i) => pixels.set(resampleCrop(r.img, r.rect, width, height, r.flip ?? false).data, i * width * height * 3));
    out.push(...(await embedPixels(model, kind, pixels, batch.length)));
  }
  return out;
}
