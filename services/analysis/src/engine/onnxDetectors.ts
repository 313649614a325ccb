/**
 * Three of `@vladmandic/human`'s networks run in onnxruntime instead of on tfjs' WASM backend (ADR
 * 0030): CenterNet (persons), BlazeFace (faces) and MoveNet Lightning (body poses), converted once
 * to ONNX from the package's own files (`scripts/train/human-onnx/export_onnx.py`;
 * `services/analysis/models/`). The networks are the same; what Human does around them — resizing,
 * decoding, non-maximum suppression, the rounding of boxes and scores — is done here as Human does
 * it (its `object/centernet.ts`, `face/blazeface.ts`, `face/facemesh.ts`, `face/facemeshutil.ts`,
 * `body/movenet.ts` and `body/movenetfix.ts`, version 3.3), with tfjs ops where Human used them.
 * One session per model and thread, one intra-op thread: the detector pool runs one detector per core.
 */
import * as tf from '@tensorflow/tfjs-core';
import * as ort from 'onnxruntime-node';
import { committedModelFile, onnxSession } from './modelFiles.js';

/** The ONNX file of Human's CenterNet. */
export const CENTERNET_ONNX_FILE = 'person-centernet.onnx';
/** The ONNX file of Human's BlazeFace (`blazeface.json`, the back-camera model: 256 × 256). */
export const BLAZEFACE_ONNX_FILE = 'face-blazeface.onnx';

/** Runs a committed network on one square picture (`side` × `side` × 3, NHWC): its outputs by name. */
async function runSquare(file: string, pixels: Float32Array | Int32Array, side: number): Promise<ort.InferenceSession.OnnxValueMapType> {
  const s = await onnxSession(committedModelFile(file));
  const type = pixels instanceof Int32Array ? 'int32' : 'float32';
  return s.run({ [s.inputNames[0]!]: new ort.Tensor(type, pixels, [1, side, side, 3]) });
}

/** The first output of {@link runSquare}'s network, as floats. */
const firstOutput = (out: ort.InferenceSession.OnnxValueMapType): Float32Array => Object.values(out)[0]!.data as Float32Array;

/** `image` (int32 or float32 pixels, 1 × h × w × 3) cast to float32 and resized bilinearly to `side` × `side`, as Human does. */
async function resized(image: tf.Tensor4D, side: number, normalise?: (t: tf.Tensor4D) => tf.Tensor4D): Promise<Float32Array> {
  const t = tf.tidy(() => {
    const r = tf.image.resizeBilinear(tf.cast(image, 'float32'), [side, side]);
    return normalise ? normalise(r) : r;
  });
  try {
    return (await t.data()) as Float32Array;
  } finally {
    tf.dispose(t);
  }
}

/** Indices kept by tfjs' non-maximum suppression (Human's call), boxes given as rows of four. */
async function suppressed(boxes: Float32Array, scores: Float32Array, max: number, iou: number, minScore: number): Promise<Int32Array> {
  const b = tf.tensor2d(boxes, [scores.length, 4]);
  const s = tf.tensor1d(scores);
  try {
    const nms = await tf.image.nonMaxSuppressionAsync(b, s, max, iou, minScore);
    const kept = (await nms.data()) as Int32Array;
    tf.dispose(nms);
    return kept;
  } finally {
    tf.dispose([b, s]);
  }
}

// ---------------------------------------------------------------------------------------------
// CenterNet

/**
 * Human's CenterNet settings (`object` of its config, as Baret used them before ADR 0030): input
 * side, the score a box needs, the overlap above which the weaker of two boxes is dropped (every
 * class together), boxes kept at most.
 */
const CENTERNET = { input: 512, minConfidence: 0.2, iouThreshold: 0.4, maxDetected: 20 } as const;
/** CenterNet's class of a person (COCO's first). */
export const COCO_PERSON = 0;

/** A box CenterNet found: its COCO class (0: person), score (two decimals, as Human reports it) and box `[x, y, w, h]` in pixels of the image. */
export interface FoundObject {
  label: number;
  score: number;
  box: [number, number, number, number];
}

/** CenterNet's network: 512 × 512 × 3 pixels (float, 0..255) → 100 detections of six values. */
export type CenterNetRun = (pixels: Float32Array) => Promise<Float32Array>;

/** {@link CenterNetRun} in onnxruntime. */
export const centernetOnnx: CenterNetRun = async (pixels) => firstOutput(await runSquare(CENTERNET_ONNX_FILE, pixels, CENTERNET.input));

/**
 * What Human's `object` detection answered, with the network run by onnxruntime: the image resized
 * to 512 × 512, the network's 100 detections (x1, y1, x2, y2, score, class in input pixels),
 * non-maximum suppression over every class, scores cut to two decimals and boxes to whole pixels.
 * `network`: onnxruntime's, or another run of the same network (the test compares tfjs' with it).
 */
export async function detectObjects(image: tf.Tensor4D, network: CenterNetRun = centernetOnnx): Promise<FoundObject[]> {
  const [, height, width] = image.shape;
  const det = await network(await resized(image, CENTERNET.input));
  const count = det.length / 6;
  const boxes = new Float32Array(count * 4);
  const scores = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    // tf.image's suppression takes y1, x1, y2, x2.
    boxes.set([det[i * 6 + 1]!, det[i * 6]!, det[i * 6 + 3]!, det[i * 6 + 2]!], i * 4);
    scores[i] = det[i * 6 + 4]!;
  }
  const found: FoundObject[] = [];
  for (const id of await suppressed(boxes, scores, CENTERNET.maxDetected, CENTERNET.iouThreshold, CENTERNET.minConfidence)) {
    const [x1, y1, x2, y2, score, label] = det.subarray(id * 6, id * 6 + 6);
    if (Number.isNaN(label)) continue;
    const x = x1! / CENTERNET.input;
    const y = y1! / CENTERNET.input;
    found.push({
      label: label!,
      score: Math.trunc(100 * score!) / 100,
      box: [Math.trunc(x * width!), Math.trunc(y * height!), Math.trunc((x2! / CENTERNET.input - x) * width!), Math.trunc((y2! / CENTERNET.input - y) * height!)],
    });
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// BlazeFace

/** BlazeFace's input side. */
const BLAZEFACE_INPUT = 256;

/** BlazeFace's anchors (Human's `generateAnchors(256)`): strides 16 and 32, two and six anchors a cell; `[x, y]` each. */
const BLAZEFACE_ANCHORS: ReadonlyArray<readonly [number, number]> = (() => {
  const anchors: Array<[number, number]> = [];
  for (const [stride, perCell] of [
    [BLAZEFACE_INPUT / 16, 2],
    [BLAZEFACE_INPUT / 8, 6],
  ] as const) {
    const cells = Math.floor((BLAZEFACE_INPUT + stride - 1) / stride);
    for (let gy = 0; gy < cells; gy++) for (let gx = 0; gx < cells; gx++) for (let n = 0; n < perCell; n++) anchors.push([stride * (gx + 0.5), stride * (gy + 0.5)]);
  }
  return anchors;
})();

/** A face as Human reports it with the mesh off: box `[x, y, w, h]` (whole pixels, inside the image), score (two decimals), six landmarks. */
export interface FoundFaceBox {
  box: [number, number, number, number];
  score: number;
  landmarks: Array<[number, number]>;
}

/** What {@link detectFaceBoxes} is asked: faces at most, the score a face needs (strictly above), the overlap that suppresses, the box's enlargement. */
export interface FaceBoxOptions {
  maxDetected: number;
  minConfidence: number;
  iouThreshold: number;
  scale: number;
}

const f32 = Math.fround;

/**
 * What Human's face detection answered with the mesh, rotation and every other face model off,
 * with BlazeFace run by onnxruntime: the image resized to 256 × 256 and scaled to −1..1, the 896
 * anchors' boxes and scores decoded (in float32, as tfjs computes them), non-maximum suppression,
 * then each kept box scaled to the image, enlarged by `scale`, made square and rounded, and clamped
 * to the image; a face whose score, rounded to two decimals, is not above `minConfidence` is dropped.
 */
export async function detectFaceBoxes(image: tf.Tensor4D, opts: FaceBoxOptions): Promise<FoundFaceBox[]> {
  const [, height, width] = image.shape;
  const out = await runSquare(BLAZEFACE_ONNX_FILE, await resized(image, BLAZEFACE_INPUT, (t) => tf.sub(tf.div(t, 127.5), 1)), BLAZEFACE_INPUT);
  // Four outputs: scores and boxes of the 512 anchors of stride 16, then of the 384 of stride 32.
  const byShape = (rows: number, cols: number) => Object.values(out).find((t) => t.dims[1] === rows && t.dims[2] === cols)!.data as Float32Array;
  const parts = [
    { scores: byShape(512, 1), rows: byShape(512, 16), count: 512 },
    { scores: byShape(384, 1), rows: byShape(384, 16), count: 384 },
  ];
  const total = BLAZEFACE_ANCHORS.length;
  const logits = new Float32Array(total);
  const raw = new Float32Array(total * 16);
  let at = 0;
  for (const p of parts) {
    logits.set(p.scores, at);
    raw.set(p.rows, at * 16);
    at += p.count;
  }
  const boxes = new Float32Array(total * 4);
  for (let i = 0; i < total; i++) {
    const [ax, ay] = BLAZEFACE_ANCHORS[i]!;
    const r = raw.subarray(i * 16, i * 16 + 16);
    const cx = f32(f32(r[0]! + ax) / BLAZEFACE_INPUT);
    const cy = f32(f32(r[1]! + ay) / BLAZEFACE_INPUT);
    const hw = f32(f32(r[2]! / BLAZEFACE_INPUT) / 2);
    const hh = f32(f32(r[3]! / BLAZEFACE_INPUT) / 2);
    boxes.set([f32(f32(cx - hw) * BLAZEFACE_INPUT), f32(f32(cy - hh) * BLAZEFACE_INPUT), f32(f32(cx + hw) * BLAZEFACE_INPUT), f32(f32(cy + hh) * BLAZEFACE_INPUT)], i * 4);
  }
  const sig = tf.tidy(() => tf.sigmoid(tf.tensor1d(logits)));
  const scores = (await sig.data()) as Float32Array;
  tf.dispose(sig);
  const fx = width! / BLAZEFACE_INPUT;
  const fy = height! / BLAZEFACE_INPUT;
  const found: FoundFaceBox[] = [];
  for (const i of await suppressed(boxes, scores, opts.maxDetected, opts.iouThreshold, opts.minConfidence)) {
    const confidence = scores[i]!;
    // Human keeps a face above the threshold whose score, rounded, is above it too (blazeface.ts, facemesh.ts).
    const score = Math.round(100 * confidence) / 100;
    if (!(confidence > opts.minConfidence) || !(score > (opts.minConfidence || 1))) continue;
    const [ax, ay] = BLAZEFACE_ANCHORS[i]!;
    const b = boxes.subarray(i * 4, i * 4 + 4);
    // Human's scaleBoxCoordinates, enlargeBox and squarifyBox.
    const sx = b[0]! * fx;
    const sy = b[1]! * fy;
    const ex = b[2]! * fx;
    const ey = b[3]! * fy;
    const landmarks = Array.from({ length: 6 }, (_, k): [number, number] => [(raw[i * 16 + 4 + 2 * k]! + ax) * fx, (raw[i * 16 + 5 + 2 * k]! + ay) * fy]);
    const cx = sx + (ex - sx) / 2;
    const cy = sy + (ey - sy) / 2;
    const w = Math.abs(ex - sx);
    const h = Math.abs(ey - sy);
    const es = [cx - (opts.scale * w) / 2, cy - (opts.scale * h) / 2, cx + (opts.scale * w) / 2, cy + (opts.scale * h) / 2] as const;
    const qcx = es[0] + (es[2] - es[0]) / 2;
    const qcy = es[1] + (es[3] - es[1]) / 2;
    const half = Math.max(Math.abs(es[2] - es[0]), Math.abs(es[3] - es[1])) / 2;
    const start = [Math.round(qcx - half), Math.round(qcy - half)] as const;
    const end = [Math.round(qcx + half), Math.round(qcy + half)] as const;
    if (!(Math.round(Math.abs(es[2] - es[0])) > 0 && Math.round(Math.abs(es[3] - es[1])) > 0)) continue;
    // Human's clampBox.
    const box: [number, number, number, number] = [
      Math.trunc(Math.max(0, start[0])),
      Math.trunc(Math.max(0, start[1])),
      Math.trunc(Math.min(width!, end[0]) - Math.max(0, start[0])),
      Math.trunc(Math.min(height!, end[1]) - Math.max(0, start[1])),
    ];
    found.push({ box, score, landmarks });
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// MoveNet

/** MoveNet Lightning's input side. */
const MOVENET_INPUT = 192;
/** The ONNX file of Human's MoveNet Lightning (`movenet-lightning.json`, one pose). */
export const MOVENET_ONNX_FILE = 'pose-movenet-lightning.onnx';
/** MoveNet's 17 parts, in its output's order (COCO's). */
const MOVENET_PARTS = [
  'nose', 'leftEye', 'rightEye', 'leftEar', 'rightEar', 'leftShoulder', 'rightShoulder', 'leftElbow', 'rightElbow',
  'leftWrist', 'rightWrist', 'leftHip', 'rightHip', 'leftKnee', 'rightKnee', 'leftAnkle', 'rightAnkle',
] as const;
/** Human's `movenetcoords`: pairs fixed left against right, parts dropped when below the other, pairs rearranged by their neighbours. */
const HORIZONTAL = [['leftEye', 'rightEye'], ['leftEar', 'rightEar'], ['leftShoulder', 'rightShoulder'], ['leftElbow', 'rightElbow'], ['leftWrist', 'rightWrist'], ['leftHip', 'rightHip'], ['leftKnee', 'rightKnee'], ['leftAnkle', 'rightAnkle']] as const;
const VERTICAL = [['leftKnee', 'leftShoulder'], ['rightKnee', 'rightShoulder'], ['leftAnkle', 'leftKnee'], ['rightAnkle', 'rightKnee']] as const;
const RELATIVE = [
  [['leftHip', 'rightHip'], ['leftShoulder', 'rightShoulder']],
  [['leftElbow', 'rightElbow'], ['leftShoulder', 'rightShoulder']],
] as const;
/** Human's `maxJitter`: a part that moved less than this (a fraction of the image) since the last pose keeps its last place. */
const MAX_JITTER = 0.005;

/** A body part MoveNet found: its score (two decimals), its place in pixels of the image and as a fraction of it. */
export interface PoseKeypoint {
  part: string;
  score: number;
  position: [number, number];
  positionRaw: [number, number];
}

/** MoveNet's network: 192 × 192 × 3 pixels (int32) → 17 × (y, x, score). */
export type MoveNetRun = (pixels: Int32Array) => Promise<Float32Array>;

/** {@link MoveNetRun} in onnxruntime. */
export const movenetOnnx: MoveNetRun = async (pixels) => firstOutput(await runSquare(MOVENET_ONNX_FILE, pixels, MOVENET_INPUT));

/**
 * Human's jitter filter keeps the last pose's parts, place by place in the list, across calls of a
 * thread: a pose depends on the one before it, exactly as it did with Human (`movenetfix.ts`).
 */
export interface PoseHistory {
  keypoints: PoseKeypoint[];
}
const history: PoseHistory = { keypoints: [] };

/**
 * What Human's body detection (MoveNet Lightning, one pose) answered, with the network run by
 * onnxruntime (`movenet.ts` and `movenetfix.ts` of Human 3.3): the image padded to a square,
 * resized to 192 × 192 and cut to integers; parts above `minConfidence`; left and right fixed, an
 * improbable knee or ankle dropped; places back in pixels of the image; then the jitter filter
 * against `past`. `network`: onnxruntime's, or another run of the same network (the test compares tfjs' with it).
 */
export async function detectPose(image: tf.Tensor4D, minConfidence: number, network: MoveNetRun = movenetOnnx, past: PoseHistory = history): Promise<PoseKeypoint[]> {
  const [, height, width] = image.shape as [number, number, number, number];
  const padY = width > height ? Math.trunc((width - height) / 2) : 0;
  const padX = height > width ? Math.trunc((height - width) / 2) : 0;
  const t = tf.tidy(() =>
    tf.cast(
      tf.image.resizeBilinear(
        tf.pad(tf.cast(image, 'float32'), [
          [0, 0],
          [padY, padY],
          [padX, padX],
          [0, 0],
        ]),
        [MOVENET_INPUT, MOVENET_INPUT],
      ),
      'int32',
    ),
  );
  let pixels: Int32Array;
  try {
    pixels = (await t.data()) as Int32Array;
  } finally {
    tf.dispose(t);
  }
  const out = await network(pixels);
  let keypoints: PoseKeypoint[] = [];
  MOVENET_PARTS.forEach((part, id) => {
    const [y, x, score] = [out[id * 3]!, out[id * 3 + 1]!, out[id * 3 + 2]!];
    if (score > minConfidence) keypoints.push({ score: Math.round(100 * score) / 100, part, positionRaw: [x, y], position: [Math.round(width * x), Math.round(height * y)] });
  });
  fixBodyParts(keypoints);
  keypoints = keypoints.filter((k) => k?.position);
  for (const k of keypoints) {
    k.position = [(k.position[0] * (width + 2 * padX)) / width - padX, (k.position[1] * (height + 2 * padY)) / height - padY];
    k.positionRaw = [k.position[0] / width, k.position[1] / height];
  }
  for (let i = 0; i < keypoints.length; i++) {
    const last = past.keypoints[i];
    if (last && Math.abs(keypoints[i]!.positionRaw[0] - last.positionRaw[0]) < MAX_JITTER && Math.abs(keypoints[i]!.positionRaw[1] - last.positionRaw[1]) < MAX_JITTER) keypoints[i] = last;
    else past.keypoints[i] = keypoints[i]!;
  }
  return keypoints;
}

/**
 * Human's `bodyParts` fix, step for step (its quirks included: a pair rearranged when one of its
 * parts is missing moves the other out of the list, as Human's does).
 */
function fixBodyParts(kp: PoseKeypoint[]): void {
  const at = (part: string) => kp.findIndex((k) => k && k.part === part);
  const list = kp as Array<PoseKeypoint | undefined> & Record<number, PoseKeypoint | undefined>;
  for (const [l, r] of HORIZONTAL) {
    const left = at(l);
    const right = at(r);
    if (list[left] && list[right] && list[left].position[0] < list[right].position[0]) [list[left], list[right]] = [list[right], list[left]];
  }
  for (const [lo, hi] of VERTICAL) {
    const lower = at(lo);
    const higher = at(hi);
    if (list[lower] && list[higher] && list[lower].position[1] < list[higher].position[1]) kp.splice(lower, 1);
  }
  for (const [[l, r], [lt, rt]] of RELATIVE) {
    const left = at(l);
    const right = at(r);
    const leftTo = at(lt);
    const rightTo = at(rt);
    if (!list[leftTo] || !list[rightTo]) continue;
    const dl = list[left] ? [Math.abs(list[leftTo].position[0] - list[left].position[0]), Math.abs(list[rightTo].position[0] - list[left].position[0])] : [0, 0];
    const dr = list[right] ? [Math.abs(list[rightTo].position[0] - list[right].position[0]), Math.abs(list[leftTo].position[0] - list[right].position[0])] : [0, 0];
    if (dl[0]! > dl[1]! || dr[0]! > dr[1]!) [list[left], list[right]] = [list[right], list[left]];
  }
}
