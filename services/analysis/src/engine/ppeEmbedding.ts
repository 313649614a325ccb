/**
 * Appearance embeddings of head and torso crops for the learned PPE classifier: the crop, resized
 * to a fixed size, goes through the MobileNetV3 backbone of the CenterNet person detector that
 * ships with `@vladmandic/human` (ImageNet/COCO-pretrained, already loaded for person detection),
 * and the global averages its squeeze-and-excite blocks compute at four depths (96 + 384 + 528 +
 * 720 channels) are the embedding. Those layers tell shapes and materials apart (a hard hat's
 * shell from a cap, hair or a hood; a vest's reflective bands from a yellow shirt) where colour
 * statistics alone cannot.
 *
 * Runs on the tfjs backend the detector set up (WASM), in whatever thread calls it: the detector
 * pool's threads at run time, the training script's own thread in `npm run train`.
 */
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import * as tfconv from '@tensorflow/tfjs-converter';
import { localModelDir, readModelArtifacts, warmUpDetector, type RawImage } from './detector.js';
import { headFeatures, joinFeatures, resampleCrop, torsoFeatures, type Rect } from './ppeFeatures.js';

/** Input sizes of the backbone (width × height) per crop kind. */
export const EMBED_INPUT = { head: { width: 96, height: 96 }, torso: { width: 80, height: 112 } } as const;
export type CropKind = keyof typeof EMBED_INPUT;

/** The backbone's pooled activations used as the embedding, shallow to deep (graph node names). */
export const EMBEDDING_NODES = [5, 10, 12, 14].map((i) => `tower_0/MobilenetV3/expanded_conv_${i}/squeeze_excite/Mean`);
/** Length of one embedding (sum of the channels of {@link EMBEDDING_NODES}). */
export const EMBEDDING_SIZE = 96 + 384 + 528 + 720;
/** Crops per backbone call. */
const BATCH = 16;

let modelPromise: Promise<tfconv.GraphModel> | null = null;

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

async function loadBackbone(): Promise<tfconv.GraphModel> {
  await warmUpDetector();
  const artifacts = await backboneArtifacts();
  return tfconv.loadGraphModel({ load: async () => artifacts });
}

function backbone(): Promise<tfconv.GraphModel> {
  if (!modelPromise) {
    modelPromise = loadBackbone().catch((err: unknown) => {
      modelPromise = null;
      throw err;
    });
  }
  return modelPromise;
}

/** One embedding request: a rectangle of an image, optionally mirrored. */
export interface EmbedRequest {
  img: RawImage;
  rect: Rect;
  flip?: boolean;
}

/** Embeddings (length {@link EMBEDDING_SIZE}) of crops of one kind, in the order asked. */
export async function embedCrops(kind: CropKind, requests: readonly EmbedRequest[]): Promise<Float32Array[]> {
  if (requests.length === 0) return [];
  const model = await backbone();
  const { width, height } = EMBED_INPUT[kind];
  const out: Float32Array[] = [];
  for (let start = 0; start < requests.length; start += BATCH) {
    const batch = requests.slice(start, start + BATCH);
    const pixels = new Float32Array(batch.length * width * height * 3);
    batch.forEach((r, i) => pixels.set(resampleCrop(r.img, r.rect, width, height, r.flip ?? false).data, i * width * height * 3));
    const input = tf.tensor4d(pixels, [batch.length, height, width, 3]);
    const results = model.execute(input, EMBEDDING_NODES) as tf.Tensor[];
    try {
      const values = await Promise.all(results.map((t) => t.data() as Promise<Float32Array>));
      for (let i = 0; i < batch.length; i++) {
        const e = new Float32Array(EMBEDDING_SIZE);
        let o = 0;
        for (const [k, v] of values.entries()) {
          const channels = results[k]!.shape[3]!;
          e.set(v.subarray(i * channels, (i + 1) * channels), o);
          o += channels;
        }
        out.push(e);
      }
    } finally {
      tf.dispose([input, ...results]);
    }
  }
  return out;
}

/**
 * The classifier's inputs for crops of one kind, in the order asked: the hand-made features,
 * followed by the backbone's embedding when `withEmbedding` (all crops in batches). Training
 * (scripts/train/samples.ts) and run time (ppe.ts) both build their inputs here, so they match.
 */
export async function classifierInputs(kind: CropKind, requests: readonly EmbedRequest[], withEmbedding: boolean): Promise<Float32Array[]> {
  const handMade = kind === 'head' ? headFeatures : torsoFeatures;
  const embeddings = withEmbedding ? await embedCrops(kind, requests) : [];
  return requests.map((r, i) => {
    const own = handMade(r.img, r.rect, r.flip ?? false);
    return withEmbedding ? joinFeatures(own, embeddings[i]!) : own;
  });
}
