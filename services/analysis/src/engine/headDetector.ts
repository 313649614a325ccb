/**
 * The head detector: finds heads (with or without a hard hat) on a whole image, so that the head
 * classifier can judge a second, independently placed crop of each worker's head (ppe.ts). The
 * person detector places heads from MoveNet's face keypoints, and those swing a head's width by up
 * to a factor of two on faces turned sideways or looking up (MODEL_CARD.md, "Known failures"); the
 * head detector's boxes are learned from the labelled head boxes of the training photos.
 *
 * A CenterNet-style head on the person detector's own backbone: the image, resampled to 384 pixels
 * on its long side (the crops' area filter, ppeFeatures.ts; the training photos, nearly all square,
 * to 384 × 384), goes through the MobileNetV3 of `@vladmandic/human`'s
 * CenterNet with its weights as shipped (frozen, never tuned); the activations of blocks 5
 * (stride 8) and 11 (stride 16) are standardised, the second upsampled and put beside the first,
 * and two 3 × 3 convolutions (96 channels, ReLU) end in a 1 × 1 convolution to a head heatmap
 * (hard hat, bare; sigmoid) and a 1 × 1 convolution to the head box's log size. Heads are the
 * heatmap's local maxima at or above the model's `minScore`. Trained by `npm run train`
 * (scripts/train/heads/), weights in `services/analysis/models/ppe-head-detector.{json,bin}`.
 *
 * Runs on the tfjs backend the detector set up (WASM), in whatever thread calls it: the detector
 * pool's threads at run time.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { iou, type RawImage } from './detector.js';
import { loadBackbone } from './ppeEmbedding.js';
import { resampleCrop, type HeadBoxGeometry } from './ppeFeatures.js';
import { onnxSession } from './modelFiles.js';
import { MODEL_PATH } from './ppeModel.js';
import * as ort from 'onnxruntime-node';

/** The model file format this build reads. */
export const HEAD_DETECTOR_VERSION = 1;
/**
 * The format of a head detector on EfficientNet-Lite2 in one ONNX file (issue 38, ADR 0031:
 * measured by `npm run train -- --cv --cv-lite-detector`, not shipped): `weights` names the ONNX
 * file (input `pixels` NHWC 0..255, short side a multiple of 32; outputs `heat`, `size` NHWC).
 */
export const HEAD_DETECTOR_LITE2_VERSION = 2;
/** Long side the image is resampled to. */
export const HEAD_DETECTOR_INPUT = 384;
/** Pixels of the input per heatmap cell. */
export const HEAD_DETECTOR_STRIDE = 8;
/** The backbone activations the head reads, shallow to deep (strides 8 and 16). */
export const HEAD_DETECTOR_FEATURES = ['tower_0/MobilenetV3/expanded_conv_5/add', 'tower_0/MobilenetV3/expanded_conv_11/add'] as const;
/** The convolution layers, in the order their weights are stored (float16, kernels HWIO then bias). */
export const HEAD_DETECTOR_LAYERS = ['conv1', 'conv2', 'heat', 'size'] as const;

/** The committed model file (`ppe-head-detector.json`). */
export interface HeadDetectorFile {
  version: typeof HEAD_DETECTOR_VERSION;
  input: typeof HEAD_DETECTOR_INPUT;
  stride: typeof HEAD_DETECTOR_STRIDE;
  features: readonly string[];
  /** Standardisation of each feature map (per channel). */
  featureMean: number[][];
  featureStd: number[][];
  /** Shapes of each layer's kernel and bias, in {@link HEAD_DETECTOR_LAYERS} order. */
  layers: Array<{ name: string; kernel: number[]; bias: number[] }>;
  /** The weights file next to this one, by its SHA-256. */
  weights: { file: string; sha256: string };
  /** Heatmap value at or above which a local maximum is a head. */
  minScore: number;
  /** Box → head geometry of the crop (ppeFeatures.ts `headBoxCropRect`), measured on the training photos (scripts/train/samples.ts `calibrate`). */
  crop: HeadBoxGeometry;
  /** Figures measured by the training script (reported in the model card). */
  metrics?: Record<string, unknown>;
}

/** A format-2 model file: the head detector on EfficientNet-Lite2, one ONNX file named by `weights` (ADR 0031). */
export interface HeadDetectorLite2File extends Pick<HeadDetectorFile, 'input' | 'stride' | 'weights' | 'minScore' | 'crop' | 'metrics'> {
  version: typeof HEAD_DETECTOR_LITE2_VERSION;
}

/** A model file of either format this build reads. */
export type AnyHeadDetectorFile = HeadDetectorFile | HeadDetectorLite2File;

/** A detected head: `[x, y, width, height]` in pixels of the image it was found on. */
export interface DetectedHead {
  box: [number, number, number, number];
  /** Heatmap peak, 0..1 (the larger of its two classes; the head classifier gives the verdict). */
  score: number;
}

/** The committed model file, next to the PPE classifier. */
export const HEAD_DETECTOR_PATH = path.join(path.dirname(MODEL_PATH), 'ppe-head-detector.json');

/** Reads and checks a head detector model file (not its weights). */
export function readHeadDetectorFile(file = HEAD_DETECTOR_PATH): AnyHeadDetectorFile {
  const model = JSON.parse(readFileSync(file, 'utf8')) as AnyHeadDetectorFile;
  if (model.version === HEAD_DETECTOR_LITE2_VERSION) return model;
  if (model.version !== HEAD_DETECTOR_VERSION) throw new Error(`head detector ${file} has version ${String((model as { version: unknown }).version)}, this build reads version ${HEAD_DETECTOR_VERSION} (or ${HEAD_DETECTOR_LITE2_VERSION}, the measured Lite2 detector): run npm run train`);
  if (model.input !== HEAD_DETECTOR_INPUT || model.stride !== HEAD_DETECTOR_STRIDE || JSON.stringify(model.features) !== JSON.stringify(HEAD_DETECTOR_FEATURES)) {
    throw new Error(`head detector ${file} reads other inputs than this build computes: run npm run train`);
  }
  return model;
}

/** Throws unless `weights` are the ones `model` names (a changed file would detect at random). */
export function verifyHeadDetectorWeights(model: AnyHeadDetectorFile, weights: Uint8Array, file: string): void {
  const actual = createHash('sha256').update(weights).digest('hex');
  if (actual !== model.weights.sha256) throw new Error(`${file} (sha256 ${actual}) is not the head detector weights ${model.weights.file} names (${model.weights.sha256}): run npm run train`);
}

/** A loaded head detector: the frozen backbone and the head's tensors. */
export interface HeadDetector {
  model: AnyHeadDetectorFile;
  backbone: tfconv.GraphModel | null;
  tensors: Record<string, tf.Tensor>;
  /** A format-2 detector's ONNX file (then no backbone and no tensors). */
  onnx?: string;
  /** The input's short side is a multiple of this: the deepest map's stride (16; a format-2 detector's 32). */
  inputMultiple: number;
}

/** Builds a detector from a model file and its weights (float16, in {@link HEAD_DETECTOR_LAYERS} order). */
export async function makeHeadDetector(model: HeadDetectorFile, weights: Uint8Array): Promise<HeadDetector> {
  // First: loading the backbone (its shipped weights) sets up the tfjs backend the head's tensors live on.
  const backbone = await loadBackbone();
  // The weights file is a tfjs weights file of float16-quantised float32 tensors: tfjs decodes it.
  const specs: tf.io.WeightsManifestEntry[] = HEAD_DETECTOR_LAYERS.flatMap((name) => {
    const layer = model.layers.find((l) => l.name === name);
    if (!layer) throw new Error(`head detector model file has no layer ${name}: run npm run train`);
    return (['kernel', 'bias'] as const).map((part) => ({ name: `${name}/${part}`, shape: layer[part], dtype: 'float32' as const, quantization: { dtype: 'float16' as const } }));
  });
  const bytes = 2 * specs.reduce((sum, s) => sum + s.shape.reduce((a, b) => a * b, 1), 0);
  if (weights.byteLength !== bytes) throw new Error(`head detector weights file has ${weights.byteLength} bytes, its model file describes ${bytes}: run npm run train`);
  const tensors: Record<string, tf.Tensor> = tf.io.decodeWeights(weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer, specs);
  model.featureMean.forEach((m, i) => {
    tensors[`mean${i}`] = tf.tensor1d(m);
    tensors[`std${i}`] = tf.tensor1d(model.featureStd[i]!);
  });
  return { model, backbone, tensors, inputMultiple: 16 };
}

let committed: Promise<HeadDetector> | null = null;

/** The committed head detector, loaded once (its weights checked against its model file). */
export function loadHeadDetector(): Promise<HeadDetector> {
  committed ??= (async () => {
    const model = readHeadDetectorFile();
    const file = path.join(path.dirname(HEAD_DETECTOR_PATH), model.weights.file);
    if (model.version === HEAD_DETECTOR_LITE2_VERSION) {
      await onnxSession(file, (bytes) => verifyHeadDetectorWeights(model, bytes, file));
      return { model, backbone: null, tensors: {}, onnx: file, inputMultiple: 32 };
    }
    const weights = new Uint8Array(await readFile(file));
    verifyHeadDetectorWeights(model, weights, file);
    return makeHeadDetector(model, weights);
  })().catch((err: unknown) => {
    committed = null;
    throw err;
  });
  return committed;
}

/** The detector's input size for a `width` × `height` image: 384 on the long side, the short side a multiple of 16 (the deeper map's stride). */
export function headDetectorInputSize(width: number, height: number, multiple = 16): { width: number; height: number } {
  const S = HEAD_DETECTOR_INPUT;
  const short = (a: number, b: number): number => Math.max(32, Math.round((S * a) / b / multiple) * multiple);
  return width >= height ? { width: S, height: Math.min(S, short(height, width)) } : { width: Math.min(S, short(width, height)), height: S };
}

/** The image resampled to the detector's input (`size`, else {@link headDetectorInputSize}; {@link detectorInput} for a loaded detector's): RGB 0..255, row-major. */
export function headDetectorInput(img: RawImage, size = headDetectorInputSize(img.width, img.height)): { data: Float32Array; width: number; height: number } {
  return resampleCrop(img, { x0: 0, y0: 0, x1: img.width, y1: img.height }, size.width, size.height);
}

/** `img` resampled to the input `det` reads (its short side a multiple of {@link HeadDetector.inputMultiple}). */
export function detectorInput(det: HeadDetector, img: RawImage): { data: Float32Array; width: number; height: number } {
  return headDetectorInput(img, headDetectorInputSize(img.width, img.height, det.inputMultiple));
}

/** The maps of one input size: heatmap (sigmoid, 2 channels) and log box size, NHWC, `gridW` × `gridH` cells. */
export interface HeadMaps {
  heat: Float32Array;
  size: Float32Array;
  gridW: number;
  gridH: number;
}

/** The head's outputs for `count` inputs of `width` × `height` pixels (0..255, NHWC). */
export async function headDetectorMaps(det: HeadDetector, pixels: Float32Array, count: number, width: number, height: number): Promise<HeadMaps> {
  const gridW = width / HEAD_DETECTOR_STRIDE;
  const gridH = height / HEAD_DETECTOR_STRIDE;
  if (det.onnx) {
    const session = await onnxSession(det.onnx);
    const out = await session.run({ pixels: new ort.Tensor('float32', pixels, [count, height, width, 3]) });
    return { heat: out['heat']!.data as Float32Array, size: out['size']!.data as Float32Array, gridW, gridH };
  }
  const t = det.tensors;
  const [heat, size] = tf.tidy(() => {
    const feats = det.backbone!.execute(tf.tensor4d(pixels, [count, height, width, 3]), [...HEAD_DETECTOR_FEATURES]) as tf.Tensor4D[];
    const std = feats.map((f, i) => tf.div(tf.sub(f, t[`mean${i}`]!), t[`std${i}`]!) as tf.Tensor4D);
    const x0 = tf.concat([std[0]!, tf.image.resizeBilinear(std[1]!, [gridH, gridW], false, true)], 3);
    const conv = (x: tf.Tensor4D, name: string): tf.Tensor4D => tf.add(tf.conv2d(x, t[`${name}/kernel`] as tf.Tensor4D, 1, 'same'), t[`${name}/bias`]!);
    const x2 = tf.relu(conv(tf.relu(conv(x0, 'conv1')), 'conv2'));
    return [tf.sigmoid(conv(x2, 'heat')), conv(x2, 'size')];
  });
  try {
    return { heat: (await heat.data()) as Float32Array, size: (await size.data()) as Float32Array, gridW, gridH };
  } finally {
    heat.dispose();
    size.dispose();
  }
}

/**
 * Heads in one input's maps: cells whose heatmap (the larger of its two classes) is a maximum of
 * its 3 × 3 neighbourhood and reaches `minScore`; boxes scaled by `scaleX`, `scaleY` (image pixels
 * per input pixel), most confident first. A large head can peak in more than one cell: a peak whose
 * centre lies in a more confident head's box, or whose box overlaps it by a third (IoU), is the
 * same head and is dropped.
 */
export function decodeHeads(maps: HeadMaps, minScore: number, scaleX: number, scaleY: number): DetectedHead[] {
  const { heat, size, gridW, gridH } = maps;
  const at = (y: number, x: number): number => Math.max(heat[(y * gridW + x) * 2]!, heat[(y * gridW + x) * 2 + 1]!);
  const isPeak = (y: number, x: number, v: number): boolean => {
    for (let yy = Math.max(0, y - 1); yy <= Math.min(gridH - 1, y + 1); yy++) {
      for (let xx = Math.max(0, x - 1); xx <= Math.min(gridW - 1, x + 1); xx++) if (at(yy, xx) > v) return false;
    }
    return true;
  };
  const heads: DetectedHead[] = [];
  for (let y = 0; y < gridH; y++) {
    for (let x = 0; x < gridW; x++) {
      const v = at(y, x);
      if (v < minScore || !isPeak(y, x, v)) continue;
      const i = (y * gridW + x) * 2;
      const w = Math.exp(size[i]!) * HEAD_DETECTOR_STRIDE;
      const h = Math.exp(size[i + 1]!) * HEAD_DETECTOR_STRIDE;
      const cx = (x + 0.5) * HEAD_DETECTOR_STRIDE;
      const cy = (y + 0.5) * HEAD_DETECTOR_STRIDE;
      heads.push({ box: [(cx - w / 2) * scaleX, (cy - h / 2) * scaleY, w * scaleX, h * scaleY], score: v });
    }
  }
  const kept: DetectedHead[] = [];
  for (const head of heads.sort((a, b) => b.score - a.score)) if (!kept.some((k) => samePeakHead(head, k))) kept.push(head);
  return kept;
}

/** Whether `head`'s centre lies in `other`'s box, or the two boxes overlap by a third or more (IoU). */
function samePeakHead(head: DetectedHead, other: DetectedHead): boolean {
  const [x, y, w, h] = head.box;
  const [ox, oy, ow, oh] = other.box;
  const cx = x + w / 2;
  const cy = y + h / 2;
  return (cx >= ox && cx <= ox + ow && cy >= oy && cy <= oy + oh) || iou(head.box, other.box) >= 1 / 3;
}

/** Heads on an image (boxes in its pixels), most confident first. */
export async function detectHeads(img: RawImage, det?: HeadDetector): Promise<DetectedHead[]> {
  const d = det ?? (await loadHeadDetector());
  const input = detectorInput(d, img);
  const maps = await headDetectorMaps(d, input.data, 1, input.width, input.height);
  return decodeHeads(maps, d.model.minScore, img.width / input.width, img.height / input.height);
}

/**
 * The box of a worker found by the head alone: the body a person detector would box below that
 * head — 2.5 head widths wide, from just above the head to 6 head heights down, cut to the image.
 * Workers are followed from frame to frame by their boxes (tracking.ts), so a worker the person
 * detector finds in one frame and misses in the next keeps one number; and the evidence crop frames
 * the worker as it frames the others.
 */
export function headOnlyWorkerBox(head: DetectedHead, width: number, height: number): [number, number, number, number] {
  const [x, y, w, h] = head.box;
  const x0 = Math.max(0, x - 0.75 * w);
  const y0 = Math.max(0, y - 0.15 * h);
  const x1 = Math.min(width, x + 1.75 * w);
  const y1 = Math.min(height, y + 6 * h);
  return [Math.round(x0), Math.round(y0), Math.round(Math.max(1, x1 - x0)), Math.round(Math.max(1, y1 - y0))];
}
