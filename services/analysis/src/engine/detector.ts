/**
 * Person detection, body keypoints and faces for the offline analyzer.
 *
 * Human's (`@vladmandic/human`) CenterNet, MoveNet Lightning and BlazeFace run as ONNX in
 * `onnxruntime-node` (`onnxDetectors.ts`, ADR 0030): the package's networks, converted once, about
 * three times as fast as on tfjs' WASM backend, with what Human does around them. Human itself sets
 * up the WASM backend (the tensor work around the networks) and runs the face mesh where asked. Its
 * weights and `.wasm` binaries are read from the local `node_modules`; nothing is fetched from the
 * network.
 *
 * MoveNet Lightning is a single-pose model, so the pipeline is two-stage: CenterNet finds every
 * person in the whole image, then MoveNet runs once per (large enough) person crop.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import type { Config, Human } from '@vladmandic/human';
import sharp from 'sharp';
import { COCO_PERSON, detectFaceBoxes, detectObjects, detectPose, type PoseKeypoint } from './onnxDetectors.js';
import type { Keypoint, PersonDetection } from './types.js';

/** Longest side of the working copy the detector sees; larger images are downscaled first. */
export const DETECT_MAX_SIDE = 1024;
/** Longest side of the copy a `score` detection decodes (MoveNet sees 192×192 anyway). */
export const SCORE_MAX_SIDE = 384;
/** CenterNet score a `person` box needs to count without further evidence. */
export const PERSON_MIN_SCORE = 0.3;
/** Weaker `person` boxes (down to this score) count when MoveNet finds a body in them. */
const PERSON_WEAK_SCORE = 0.2;
/** Score a body part needs to be reported at all (Human's `body.minConfidence` as Baret set it). */
const MOVENET_MIN_SCORE = 0.1;
/** Keypoint score that counts as a confident body part. */
const KEYPOINT_SCORE = 0.3;
/** Persons whose box is shorter than this (in working pixels) get no pose run. */
const POSE_MIN_HEIGHT = 48;
/** Pose runs per image at most (largest persons first): each is one more MoveNet inference. */
const MAX_POSES = 8;
/** Persons returned per image at most. */
const MAX_PERSONS = 12;

/** What a detection answers: the image's size, its persons in its pixels; `partial` when not every person is reported. */
export interface DetectResult {
  width: number;
  height: number;
  persons: PersonDetection[];
  partial?: boolean;
}

/** A decoded RGB image (3 bytes a pixel, row-major). */
export interface RawImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A decoded working copy plus the factor back to pixels of the original image. */
export interface DecodedImage {
  /** Size of the original (input) image. */
  width: number;
  height: number;
  /** Working copy (longest side at most `DETECT_MAX_SIDE`). */
  work: RawImage;
  /** original pixels = working pixels × scale. */
  scale: number;
}

const localRequire = createRequire(import.meta.url);

function humanDistPath(): string {
  // The package's `exports` map does not expose the node-wasm build under a valid subpath, so
  // it is loaded by file path from the same folder as the resolved node build.
  return path.join(path.dirname(localRequire.resolve('@vladmandic/human')), 'human.node-wasm.js');
}

/** The folder of the model weights that ship inside `@vladmandic/human`. */
export function localModelDir(): string {
  return path.join(path.dirname(path.dirname(localRequire.resolve('@vladmandic/human'))), 'models');
}

function localWasmDir(): string {
  // `main` of tfjs-backend-wasm lives in its dist/ folder, next to the .wasm binaries.
  return path.dirname(localRequire.resolve('@tensorflow/tfjs-backend-wasm')) + path.sep;
}

interface ModelJson {
  modelTopology?: unknown;
  format?: string;
  generatedBy?: string;
  convertedBy?: string | null;
  signature?: unknown;
  userDefinedMetadata?: tf.io.ModelArtifacts['userDefinedMetadata'];
  modelInitializer?: unknown;
  weightsManifest: Array<{ paths: string[]; weights: tf.io.WeightsManifestEntry[] }>;
}

/** A tfjs graph model's JSON and weight files read from disk (what tfjs-node's file loader would do). */
export async function readModelArtifacts(file: string): Promise<tf.io.ModelArtifacts> {
  const json = JSON.parse(await readFile(file, 'utf8')) as ModelJson;
  const dir = path.dirname(file);
  const weightSpecs: tf.io.WeightsManifestEntry[] = [];
  const parts: Buffer[] = [];
  for (const group of json.weightsManifest) {
    weightSpecs.push(...group.weights);
    for (const p of group.paths) parts.push(await readFile(path.join(dir, p)));
  }
  const all = Buffer.concat(parts);
  return {
    modelTopology: json.modelTopology as tf.io.ModelArtifacts['modelTopology'],
    format: json.format,
    generatedBy: json.generatedBy,
    convertedBy: json.convertedBy ?? null,
    signature: json.signature as tf.io.ModelArtifacts['signature'],
    userDefinedMetadata: json.userDefinedMetadata,
    modelInitializer: json.modelInitializer as tf.io.ModelArtifacts['modelInitializer'],
    weightSpecs,
    weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer,
  };
}

let routerRegistered = false;

/** Lets tfjs load `file://` model URLs from the local filesystem (tfjs-node is not available). */
function registerFileLoader(): void {
  if (routerRegistered) return;
  routerRegistered = true;
  const router = (url: string | string[]): tf.io.IOHandler | null => {
    const first = Array.isArray(url) ? url[0] : url;
    if (typeof first !== 'string' || !first.startsWith('file://')) return null;
    const file = fileURLToPath(first);
    return { load: () => readModelArtifacts(file) };
  };
  // tfjs's own routers answer null for URLs they do not handle; its declared type omits null.
  tf.io.registerLoadRouter(router as Parameters<typeof tf.io.registerLoadRouter>[0]);
}

type HumanCtor = new (config?: Partial<Config>) => Human;

function humanConfig(): Partial<Config> {
  return {
    backend: 'wasm',
    wasmPath: localWasmDir(),
    modelBasePath: pathToFileURL(localModelDir()).href + '/',
    debug: false,
    async: true,
    warmup: 'none',
    cacheSensitivity: 0,
    skipAllowed: false,
    cacheModels: false,
    filter: { enabled: false },
    face: { enabled: false },
    hand: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
    // MoveNet and CenterNet run in onnxruntime (onnxDetectors.ts): Human does not load them.
    body: { enabled: false },
    object: { enabled: false },
  };
}

let humanPromise: Promise<Human> | null = null;
let initMs = 0;

async function createHuman(): Promise<Human> {
  const started = performance.now();
  registerFileLoader();
  const mod = localRequire(humanDistPath()) as { Human: HumanCtor };
  const human = new mod.Human(humanConfig());
  await human.init();
  await human.load();
  // One tiny inference of each network compiles the kernels and makes the sessions, so the first real
  // call is not slow (the pose's own history: the jitter filter is not fed a blank picture).
  const blank = tf.zeros([1, 64, 64, 3], 'float32') as tf.Tensor4D;
  try {
    await detectPose(blank, MOVENET_MIN_SCORE, undefined, { keypoints: [] });
    await detectObjects(blank);
    await detectFaceBoxes(blank, { maxDetected: 1, minConfidence: FACE_DEFAULT_MIN_SCORE, iouThreshold: 0.1, scale: 1 });
  } finally {
    tf.dispose(blank);
  }
  initMs = performance.now() - started;
  return human;
}

function getHuman(): Promise<Human> {
  if (!humanPromise) {
    humanPromise = createHuman().catch((err: unknown) => {
      humanPromise = null;
      throw err;
    });
  }
  return humanPromise;
}

/**
 * Initialises the detector (WASM backend, both models, kernel warm-up) if not done yet and
 * returns how long the initialisation took, in milliseconds.
 */
export async function warmUpDetector(): Promise<{ initMs: number }> {
  await getHuman();
  return { initMs };
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs `fn` after every earlier detector call has finished (the WASM backend is single-threaded). */
function serialised<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(fn, fn);
  queue = run.catch(() => undefined);
  return run;
}

/** Decodes a JPEG (or any format sharp reads) into an RGB working copy. */
export async function decodeImage(jpeg: Buffer, maxSide = DETECT_MAX_SIDE): Promise<DecodedImage> {
  const meta = await sharp(jpeg).rotate().metadata();
  // `autoOrient` dimensions: swap when the EXIF orientation rotates by 90°.
  const rotated = (meta.orientation ?? 1) >= 5;
  const width = (rotated ? meta.height : meta.width) ?? 0;
  const height = (rotated ? meta.width : meta.height) ?? 0;
  if (width <= 0 || height <= 0) throw new Error('image has no dimensions');
  const longest = Math.max(width, height);
  let pipeline = sharp(jpeg).rotate().removeAlpha().toColourspace('srgb');
  if (longest > maxSide) {
    pipeline = pipeline.resize({
      width: Math.max(1, Math.round((width * maxSide) / longest)),
      height: Math.max(1, Math.round((height * maxSide) / longest)),
      fit: 'fill',
    });
  }
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  const work: RawImage = { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
  return { width, height, work, scale: width / info.width };
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

/** Overlap of two `[x, y, w, h]` boxes: intersection over union, 0..1. */
export function iou(a: readonly [number, number, number, number], b: readonly [number, number, number, number]): number {
  const x1 = Math.max(a[0], b[0]);
  const y1 = Math.max(a[1], b[1]);
  const x2 = Math.min(a[0] + a[2], b[0] + b[2]);
  const y2 = Math.min(a[1] + a[3], b[1] + b[3]);
  const inter = Math.max(0, x2 - x1) * Math.max(0, y2 - y1);
  const union = a[2] * a[3] + b[2] * b[3] - inter;
  return union > 0 ? inter / union : 0;
}

/** Overlap of two `[x, y, w, h]` boxes: intersection over the smaller box's area, 0..1 (1 when one lies inside the other). */
export function overlapOfSmaller(a: readonly number[], b: readonly number[]): number {
  const ix = Math.max(0, Math.min(a[0]! + a[2]!, b[0]! + b[2]!) - Math.max(a[0]!, b[0]!));
  const iy = Math.max(0, Math.min(a[1]! + a[3]!, b[1]! + b[3]!) - Math.max(a[1]!, b[1]!));
  const smaller = Math.min(a[2]! * a[3]!, b[2]! * b[3]!);
  return smaller > 0 ? (ix * iy) / smaller : 0;
}

async function poseForBox(
  image: tf.Tensor4D,
  work: RawImage,
  box: [number, number, number, number],
): Promise<Keypoint[]> {
  // Expand the box a little so the head and feet are not cut, then crop from the working copy.
  const [bx, by, bw, bh] = box;
  const x0 = Math.floor(clamp(bx - bw * 0.08, 0, work.width - 1));
  const y0 = Math.floor(clamp(by - bh * 0.08, 0, work.height - 1));
  const x1 = Math.ceil(clamp(bx + bw * 1.08, x0 + 1, work.width));
  const y1 = Math.ceil(clamp(by + bh * 1.05, y0 + 1, work.height));
  const crop = tf.slice4d(image, [0, y0, x0, 0], [1, y1 - y0, x1 - x0, 3]);
  let keypoints: PoseKeypoint[];
  try {
    keypoints = await detectPose(crop, MOVENET_MIN_SCORE);
  } finally {
    tf.dispose(crop);
  }
  return keypoints.map((k) => ({
    part: k.part,
    x: x0 + k.position[0],
    y: y0 + k.position[1],
    score: k.score,
  }));
}

/** Drops a crop's pose when most of its confident parts fall outside the person box (a neighbour's pose). */
function keepIfInside(keypoints: Keypoint[], box: [number, number, number, number]): Keypoint[] {
  const confident = keypoints.filter((k) => k.score >= KEYPOINT_SCORE);
  if (confident.length === 0) return keypoints;
  const [x, y, w, h] = box;
  const inside = confident.filter((k) => k.x >= x - 0.05 * w && k.x <= x + 1.05 * w && k.y >= y - 0.05 * h && k.y <= y + 1.05 * h);
  return inside.length >= 0.7 * confident.length ? keypoints : [];
}

/** Whether two poses put the nose or the eyes at the same place (the same person). */
function sameHead(a: Keypoint[], b: Keypoint[]): boolean {
  for (const part of ['nose', 'leftEye', 'rightEye']) {
    const ka = a.find((k) => k.part === part && k.score >= KEYPOINT_SCORE);
    const kb = b.find((k) => k.part === part && k.score >= KEYPOINT_SCORE);
    if (!ka || !kb) continue;
    const ref = Math.max(8, headSpan(a), headSpan(b));
    if (Math.hypot(ka.x - kb.x, ka.y - kb.y) < ref) return true;
  }
  return false;
}

/** Distance between the eyes or ears of a pose (0 when unknown). */
function headSpan(kps: Keypoint[]): number {
  const get = (part: string): Keypoint | undefined => kps.find((k) => k.part === part && k.score >= KEYPOINT_SCORE);
  const l = get('leftEar') ?? get('leftEye');
  const r = get('rightEar') ?? get('rightEye');
  return l && r ? Math.hypot(l.x - r.x, l.y - r.y) : 0;
}

/** Options of a detection. */
export interface DetectOptions {
  /**
   * Run MoveNet for body keypoints (default true). Without, only CenterNet runs: person boxes
   * with a score of at least {@link PERSON_MIN_SCORE} and no keypoints, several times faster
   * (what frame scoring needs).
   */
  poses?: boolean;
  /** Longest side of the working copy, default {@link DETECT_MAX_SIDE}. */
  maxSide?: number;
  /**
   * `score`: one MoveNet pass over the whole image only (no CenterNet), which finds the most
   * prominent worker: cheap enough to score many candidate frames. The answer is `partial`.
   */
  mode?: 'full' | 'score';
}

/** The most prominent person of the image by one MoveNet pass (working pixels); none if the body is not clear. */
async function prominentPerson(image: tf.Tensor4D, work: RawImage): Promise<PersonDetection | undefined> {
  const whole = await poseForBox(image, work, [0, 0, work.width, work.height]);
  const strong = whole.filter((k) => k.score >= 0.4);
  if (strong.length < 6) return undefined;
  const xs = strong.map((k) => k.x);
  const ys = strong.map((k) => k.y);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  const pad = 0.1 * (Math.max(...xs) - x);
  const box: [number, number, number, number] = [clamp(x - pad, 0, work.width), clamp(y - pad * 2, 0, work.height), 0, 0];
  box[2] = Math.min(clamp(Math.max(...xs) - x + 2 * pad, 1, work.width), work.width - box[0]);
  box[3] = Math.min(clamp(Math.max(...ys) - y + 3 * pad, 1, work.height), work.height - box[1]);
  const score = strong.reduce((s, k) => s + k.score, 0) / strong.length;
  return { box, score: Math.round(score * 100) / 100, keypoints: whole };
}

/** Person detection on an already decoded working copy; boxes and keypoints in working pixels. */
export async function detectPersonsRaw(work: RawImage, opts: DetectOptions = {}): Promise<PersonDetection[]> {
  const withPoses = opts.poses ?? true;
  // The WASM backend (set up with Human) runs the tensor work around the networks.
  await getHuman();
  return serialised(async () => {
    const image = tf.tensor4d(work.data, [1, work.height, work.width, 3], 'int32');
    try {
      if (opts.mode === 'score') {
        const one = await prominentPerson(image, work);
        return one ? [one] : [];
      }
      const boxes: Array<{ box: [number, number, number, number]; score: number }> = [];
      for (const o of await detectObjects(image)) {
        if (o.label !== COCO_PERSON || o.score < PERSON_WEAK_SCORE) continue;
        const x = clamp(o.box[0], 0, work.width);
        const y = clamp(o.box[1], 0, work.height);
        const w = clamp(o.box[2], 0, work.width - x);
        const h = clamp(o.box[3], 0, work.height - y);
        if (w < 4 || h < 8) continue;
        const box: [number, number, number, number] = [x, y, w, h];
        if (boxes.some((b) => iou(b.box, box) > 0.6)) continue;
        boxes.push({ box, score: o.score });
      }
      boxes.sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
      const persons: PersonDetection[] = [];
      let poses = 0;
      for (const b of boxes) {
        if (persons.length >= MAX_PERSONS) break;
        const canPose = withPoses && poses < MAX_POSES && b.box[3] >= POSE_MIN_HEIGHT;
        let keypoints: Keypoint[] = [];
        if (canPose) {
          poses++;
          keypoints = keepIfInside(await poseForBox(image, work, b.box), b.box);
        }
        const confident = keypoints.filter((k) => k.score >= KEYPOINT_SCORE).length;
        if (b.score < PERSON_MIN_SCORE && confident < 5) continue;
        persons.push({ box: b.box, score: b.score, keypoints });
      }
      // CenterNet misses some close-ups and partly visible workers: a confident MoveNet body on the
      // whole image that no box explains is added as a person of its own.
      if (withPoses && persons.length < MAX_PERSONS) {
        const whole = await prominentPerson(image, work);
        if (whole) {
          const strong = whole.keypoints.filter((k) => k.score >= 0.4);
          const explained = persons.some(
            (p) => iou(p.box, whole.box) > 0.3 || sameHead(p.keypoints, whole.keypoints) || keepIfInside(strong, p.box).length > 0,
          );
          if (!explained) persons.push(whole);
        }
      }
      return persons;
    } finally {
      tf.dispose(image);
    }
  });
}

/**
 * The close-up pass of {@link detectPersonsShrunk} (issue 26): the frame shrunk to each of `scales`
 * of its size, placed on a grey canvas of its own size (centred across, `top` of the free height
 * above it), so that a person cut by the frame's edges — a head and shoulders filling the picture,
 * seen from behind or in silhouette — is whole for CenterNet, which misses most such close-ups at
 * full size. Persons found at both scales are kept once (boxes overlapping by more than `sameIou`).
 * Measured on the hard-hat-or-headwear cross-validation (docs/adr/history/ppe-issue-26-measurements.md):
 * 0.6 and 0.4 together find persons on 7 of the 12 photos where no worker was found.
 */
export const CLOSE_UP_PASS = { scales: [0.6, 0.4], grey: 114, top: 0.25, sameIou: 0.4 } as const;

/**
 * Persons on `work` (working pixels) found on shrunk copies of it ({@link CLOSE_UP_PASS}): boxes
 * clipped to the frame, keypoints outside it dropped. Two more person detections: meant for a frame
 * where nothing else found a worker.
 */
export async function detectPersonsShrunk(work: RawImage): Promise<PersonDetection[]> {
  const { width, height } = work;
  const out: PersonDetection[] = [];
  const grey = { r: CLOSE_UP_PASS.grey, g: CLOSE_UP_PASS.grey, b: CLOSE_UP_PASS.grey };
  for (const scale of CLOSE_UP_PASS.scales) {
    const w = Math.max(1, Math.round(width * scale));
    const h = Math.max(1, Math.round(height * scale));
    const left = Math.round((width - w) / 2);
    const top = Math.round((height - h) * CLOSE_UP_PASS.top);
    const data = await sharp(work.data, { raw: { width, height, channels: 3 } })
      .resize({ width: w, height: h, fit: 'fill' })
      .extend({ left, right: width - w - left, top, bottom: height - h - top, background: grey })
      .raw()
      .toBuffer();
    const canvas: RawImage = { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width, height };
    const back = (v: number, offset: number): number => (v - offset) / scale;
    for (const p of await detectPersonsRaw(canvas)) {
      const x0 = clamp(back(p.box[0], left), 0, width);
      const y0 = clamp(back(p.box[1], top), 0, height);
      const x1 = clamp(back(p.box[0] + p.box[2], left), 0, width);
      const y1 = clamp(back(p.box[1] + p.box[3], top), 0, height);
      if (x1 - x0 < 4 || y1 - y0 < 8) continue;
      const box: [number, number, number, number] = [x0, y0, x1 - x0, y1 - y0];
      if (out.some((q) => iou(q.box, box) > CLOSE_UP_PASS.sameIou)) continue;
      const keypoints = p.keypoints
        .map((k) => ({ ...k, x: back(k.x, left), y: back(k.y, top) }))
        .filter((k) => k.x >= 0 && k.y >= 0 && k.x < width && k.y < height);
      out.push({ box, score: p.score, keypoints });
    }
  }
  return out;
}

/** BlazeFace's own default score threshold (`@vladmandic/human`'s `face.detector.minConfidence`). */
export const FACE_DEFAULT_MIN_SCORE = 0.2;

/** A face BlazeFace found: its box `[x, y, w, h]` (the detector's tight box, not enlarged) and landmarks, in pixels of the image. */
export interface DetectedFace {
  box: [number, number, number, number];
  score: number;
  /** BlazeFace's six landmarks (eyes, nose, mouth, ears), `[x, y]` each, in the order the model gives them. */
  landmarks: Array<[number, number]>;
  /**
   * With {@link FaceOptions}.mesh: the face mesh's confidence that the crop holds a face (0..1; the
   * second model's look at what BlazeFace found).
   */
  meshScore?: number;
}

/** Options of {@link detectFacesRaw}. */
export interface FaceOptions {
  /** Score a face needs, default {@link FACE_DEFAULT_MIN_SCORE}. */
  minScore?: number;
  /** Faces per call at most, default 20. */
  maxFaces?: number;
  /**
   * Also run the face mesh on each face found and report its confidence ({@link DetectedFace}.meshScore);
   * box, score and landmarks stay BlazeFace's. Default false.
   */
  mesh?: boolean;
}

/**
 * The faces BlazeFace (the face detector shipped in `@vladmandic/human`, run in onnxruntime: ADR
 * 0030) finds on a decoded image: detector only — no mesh, iris, emotion or description model runs,
 * unless `mesh` asks for Human's face mesh. Boxes in pixels of `img`.
 */
export async function detectFacesRaw(img: RawImage, opts: FaceOptions = {}): Promise<DetectedFace[]> {
  if (opts.mesh) return humanFaces(img, opts, true);
  await getHuman();
  return serialised(async () => {
    const image = tf.tensor4d(img.data, [1, img.height, img.width, 3], 'int32');
    try {
      // The tight box (scale 1): callers enlarge it as they need (the blur keeps the hard hat above the brow sharp).
      const faces = await detectFaceBoxes(image, { maxDetected: opts.maxFaces ?? 20, minConfidence: opts.minScore ?? FACE_DEFAULT_MIN_SCORE, iouThreshold: 0.1, scale: 1 });
      return faces.map((f) => ({ box: f.box, score: f.score, landmarks: f.landmarks }));
    } finally {
      tf.dispose(image);
    }
  });
}

/**
 * {@link detectFacesRaw} without the mesh as Human itself computes it (BlazeFace on the WASM
 * backend): the reference the onnxruntime path is checked against (`onnxDetectors.int.spec.ts`).
 */
export function detectFacesHumanRaw(img: RawImage, opts: Omit<FaceOptions, 'mesh'> = {}): Promise<DetectedFace[]> {
  return humanFaces(img, opts, false);
}

/** Human's face pipeline: BlazeFace, and with `mesh` the face mesh's confidence (its box then BlazeFace's enlarged one). */
async function humanFaces(img: RawImage, opts: FaceOptions, mesh: boolean): Promise<DetectedFace[]> {
  const human = await getHuman();
  return serialised(async () => {
    const image = tf.tensor4d(img.data, [1, img.height, img.width, 3], 'int32');
    try {
      const result = await human.detect(image, {
        object: { enabled: false },
        body: { enabled: false },
        face: {
          enabled: true,
          detector: {
            modelPath: 'blazeface.json',
            rotation: false,
            maxDetected: opts.maxFaces ?? 20,
            skipFrames: 0,
            skipTime: 0,
            minConfidence: opts.minScore ?? FACE_DEFAULT_MIN_SCORE,
            iouThreshold: 0.1,
            // The tight box; with the mesh, BlazeFace's own enlargement, the crop the mesh model expects.
            scale: mesh ? 1.4 : 1,
            return: false,
          },
          mesh: { enabled: mesh, keepInvalid: true },
          attention: { enabled: false },
          iris: { enabled: false },
          description: { enabled: false },
          emotion: { enabled: false },
          antispoof: { enabled: false },
          liveness: { enabled: false },
          gear: { enabled: false },
        },
      } as Partial<Config>);
      return result.face.map((f) => ({
        box: [f.box[0], f.box[1], f.box[2], f.box[3]] as [number, number, number, number],
        score: f.boxScore,
        landmarks: mesh ? [] : (f.mesh ?? []).map((p) => [p[0], p[1]] as [number, number]),
        ...(mesh ? { meshScore: f.faceScore } : {}),
      }));
    } finally {
      // Per-call settings stick to the instance: the person detector's calls must not run the face model.
      human.config.face.enabled = false;
      tf.dispose(image);
    }
  });
}

/** {@link detectFacesRaw} on an encoded image (boxes in its pixels, after EXIF rotation). */
export async function detectFaces(jpeg: Buffer, opts: FaceOptions = {}): Promise<{ width: number; height: number; faces: DetectedFace[] }> {
  const decoded = await decodeImage(jpeg, Number.MAX_SAFE_INTEGER);
  return { width: decoded.width, height: decoded.height, faces: await detectFacesRaw(decoded.work, opts) };
}

function scalePerson(p: PersonDetection, s: number): PersonDetection {
  return {
    box: [p.box[0] * s, p.box[1] * s, p.box[2] * s, p.box[3] * s].map((v) => Math.round(v)) as [number, number, number, number],
    score: p.score,
    keypoints: p.keypoints.map((k) => ({ part: k.part, x: Math.round(k.x * s), y: Math.round(k.y * s), score: k.score })),
  };
}

/**
 * Detects the persons in an image: CenterNet person boxes (score ≥ {@link PERSON_MIN_SCORE}),
 * largest first, each with MoveNet body keypoints (COCO part names such as `nose`, `leftEye`,
 * `rightShoulder`, `leftHip`) when the person is large enough. Boxes `[x, y, w, h]` and keypoints
 * are in pixels of the input image. Calls are serialised on one lazily initialised instance.
 */
export async function detectPersons(jpeg: Buffer, opts: DetectOptions = {}): Promise<DetectResult> {
  const decoded = await decodeImage(jpeg, opts.maxSide ?? (opts.mode === 'score' ? SCORE_MAX_SIDE : DETECT_MAX_SIDE));
  const persons = await detectPersonsRaw(decoded.work, opts);
  return {
    width: decoded.width,
    height: decoded.height,
    persons: persons.map((p) => scalePerson(p, decoded.scale)),
    ...(opts.mode === 'score' ? { partial: true } : {}),
  };
}
