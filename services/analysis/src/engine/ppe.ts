/**
 * Personal protective equipment on detected persons: a hard hat on the head and high-visibility
 * clothing on the torso. Regions come from body keypoints (eyes, ears, nose, shoulders, hips) with
 * fallbacks from the person box.
 *
 * The verdicts come from a learned classifier (`ppeModel.ts`, trained by `npm run train` on
 * `../shared/data/ppe-training`, see `services/analysis/models/MODEL_CARD.md`): a head crop is
 * judged hard hat / bare / cannot tell, a torso crop hi-vis / none / cannot tell. A second crop of
 * each head, placed by the head detector (`headDetector.ts`), is judged too and the two crops'
 * probabilities averaged; a head the detector finds on no detected person is a worker of its own
 * (its hi-vis judged below the head: `seen` or `unknown`, never `absent`); so is a face BlazeFace
 * finds where no worker's head is (close-ups, {@link FACE_HEAD}); a frame where none of them finds
 * a worker is looked at once more, shrunk, for close-ups cut by its edges ({@link judgeFrame}). The colour thresholds
 * that came before the learned classifier were retired with issue 26 (ADR 0018); only the
 * fluorescent-pixel gate of hi-vis remains of them.
 */
import sharp from 'sharp';
import { DETECT_MAX_SIDE, FACE_DEFAULT_MIN_SCORE, decodeImage, detectFacesRaw, detectPersonsRaw, detectPersonsShrunk, iou, overlapOfSmaller, type DetectedFace, type RawImage } from './detector.js';
import { detectHeads, headOnlyWorkerBox, loadHeadDetector, type DetectedHead } from './headDetector.js';
import { liteEmbedCrops } from './liteBackbone.js';
import { embedCrops } from './ppeEmbedding.js';
import { clipRect, headBoxPlace, headCropRect, rgbToHsv, type Rect } from './ppeFeatures.js';
import { HEAD_EMBEDDING_ID, liteBackboneFile, loadPpeModel, predictMlp, type PpeModelFile } from './ppeModel.js';
import { tapeBand } from './tape.js';
import type { Keypoint, PersonDetection } from './types.js';

/**
 * Hard-hat verdict for one person: a hard hat `seen`; no hard hat, with other headgear on (a cap,
 * sun hat, beanie, hood: `headgear`) or a `bare` head; or `unknown` (cannot tell).
 */
export type HardHatVerdict = 'seen' | 'headgear' | 'bare' | 'unknown';

/** Whether the verdict is "no hard hat" (other headgear or a bare head): what raises a violation. */
export const noHardHat = (v: HardHatVerdict): boolean => v === 'headgear' || v === 'bare';
/** High-visibility clothing verdict for one person. */
export type HiVisVerdict = 'seen' | 'absent' | 'unknown';

/** The measurements behind the verdicts (all fractions are 0..1 of the region's pixels). */
export interface PpeScores {
  /** Person detector score (a worker found by the head detector alone: its heatmap score). */
  person: number;
  /** Estimated head width in working pixels (the verdicts need a minimum). */
  headWidthPx: number;
  /**
   * Where the head geometry came from: face keypoints, shoulders only, the person box, or the head
   * detector (a worker whose head it found on no detected person), or a face BlazeFace found where
   * no worker's head was (`faceDetector`: close-ups, {@link FACE_HEAD}).
   */
  headFrom: 'face' | 'shoulders' | 'box' | 'detector' | 'faceDetector';
  /** Hard-hat score, −1..1: `p(hat) − p(bare) − p(other headgear)` (0 when the head was not judged). */
  hardHat: number;
  /** Torso height in working pixels. */
  torsoHeightPx: number;
  /** Torso box: fluorescent yellow-green pixels. */
  hiVisYellow: number;
  /** Torso box: fluorescent orange/red-orange pixels. */
  hiVisOrange: number;
  /** Hi-vis score, 0..1: `p(hi-vis)` (0 when the torso was not judged). */
  hiVis: number;
  /**
   * Torso box: pixels of a fluorescent hue and saturation at any light ({@link VEST_SHADE}; issue
   * 51): a vest in shadow, or worn open, that the classifier may miss. From {@link VEST_SHADE}.min
   * up, the torso is no evidence of a missing vest.
   */
  vestShade?: number;
  /**
   * Torso box, measured only where the vest would be judged absent: the longest band of
   * retroreflective tape sewn on a saturated garment, as a share of the torso's shorter side
   * ({@link tapeBand}; 0: none). A band makes the torso no evidence of a missing vest.
   */
  tape?: number;
  /** Learned model: probability that the head wears a hard hat (absent when the head was not judged). */
  hatProbability?: number;
  /** Learned model: probability that the head is bare. */
  bareProbability?: number;
  /** Learned model: probability that the head wears other headgear (a cap, hat or hood, not a hard hat). */
  otherHeadgearProbability?: number;
  /** Learned model: probability that the torso wears hi-vis clothing (absent when the torso was not judged). */
  hiVisProbability?: number;
  /** The head's crop was placed from a face BlazeFace found ({@link FACE_HEAD}), not by the head detector or keypoints. */
  headFromFace?: boolean;
  /**
   * Learned model: a head the head detector found belongs to this person and its crop was judged
   * too — the probabilities are the mean of both crops', or that crop's alone when the keypoints
   * placed no head large enough to judge.
   */
  headDetected?: boolean;
}

/** PPE findings for one detected person. */
export interface PpePerson {
  /** [x, y, width, height] in pixels of the input image. */
  box: [number, number, number, number];
  /**
   * The head its hard-hat verdict judged, `[x, y, width, height]` in pixels of the input image: the
   * head detector's box when it found that head, else the head the keypoints place. Absent when no
   * head was judged (`hardHat` is then `unknown`).
   */
  head?: [number, number, number, number];
  hardHat: HardHatVerdict;
  hiVis: HiVisVerdict;
  scores: PpeScores;
  /** What the worker looks like (appearance.ts), when the judge of a job's frame adds it. */
  look?: number[];
}

/** Where the verdicts are not given (too small to judge), and the fluorescent gate of hi-vis. */
export const PPE_THRESHOLDS = {
  /** Keypoints below this score are ignored. */
  keypointScore: 0.3,
  /** Below this head width (working pixels) the hard-hat verdict is `unknown`. */
  minHeadWidthPx: 10,
  /**
   * A head placed from the person box alone (the pose model found neither face nor shoulders: a
   * worker seen from behind, a wide brim, a silhouette) is judged only from this width (working
   * pixels) up — close-ups, where the top of the box is the head; smaller box-only heads are
   * `unknown`; a detected or face head on that person is judged instead. Issue 26
   * (docs/adr/history/ppe-issue-26-measurements.md):
   * in the hard-hat-or-headwear cross-validation 12 of the 21 "cannot tell" heads were box-only
   * heads of 47–102 px.
   */
  minBoxHeadWidthPx: 40,
  /** Below this torso height (working pixels) the hi-vis verdict is `unknown`. */
  minTorsoHeightPx: 20,
  /**
   * Hi-vis is `seen` only when at least this fraction of the torso is fluorescent
   * yellow-green or orange (hi-vis background material is fluorescent by definition, EN ISO
   * 20471); a confident "vest" on a torso without it (striped shirts, orange-brown overalls) is
   * `unknown`. Chosen on the training data's hold-out fold (ADR 0015): image-level "hi-vis worn"
   * precision 0.83 → 0.94 at the same recall; 0.01–0.02 gave 0.89, 0.05 no more. With the hi-vis
   * threshold picked under the gate (0.50, v2.1): 0.01 gave 0.91 / 0.35, 0.03 0.95 / 0.32, 0.05
   * 0.95 / 0.30 (precision / recall).
   */
  hiVisMinFluorescent: 0.03,
  /**
   * A torso without a vest is evidence of a missing vest (`absent`) only from this height (working
   * pixels) up; smaller torsos are `unknown` (issue 51: distant, crouching figures of a crowd,
   * 20–30 px tall torsos, were "hi-vis missing" while wearing vests). safety-vest-v4 (relabelled):
   * image "hi-vis not worn" unchanged (60 / 3 / 8), per worker "no hi-vis" 140 / 2 / 50 → 136 / 2 / 54
   * at 28 px; 36 px and a "no vest" floor of 0.7–0.75 cost 4.4 image-level points, past the 3 allowed.
   */
  minAbsentTorsoPx: 28,
  /** A head on no person whose box starts less than this share of its height below the frame's top is cut by it, and not judged. */
  headCutByTop: 0.05,
  /**
   * A person in shadow (backlit, under a roof) is brightened before their torso is judged: by the
   * gain that brings the brightest of their face and torso (the 95th percentile of each pixel's
   * brightest channel, from the eyes down: a white hard hat in the sun is no measure of the vest's
   * light) to this level, at most {@link PPE_THRESHOLDS}.maxExposureGain and only when
   * it is at least {@link PPE_THRESHOLDS}.minExposureGain (issue 51: the backlit lime vests of a
   * framing crew measured V 0.32 under a white hard hat at 0.48).
   */
  exposureTarget: 0.9,
  maxExposureGain: 2.2,
  minExposureGain: 1.15,
} as const;

/**
 * The exposure gain of a person (see {@link PPE_THRESHOLDS}.exposureTarget): 1 for a person already
 * lit, more for one in shadow. `region` is the person's own face and torso (working pixels), not
 * their box, whose corners show the lit background behind a backlit worker.
 */
export function exposureGain(img: RawImage, region: Rect): number {
  const rect = clipRect(region, img);
  if (!rect) return 1;
  const values: number[] = [];
  const step = Math.max(1, Math.floor(Math.sqrt(((rect.x1 - rect.x0) * (rect.y1 - rect.y0)) / 4000)));
  for (let yy = rect.y0; yy < rect.y1; yy += step) {
    for (let xx = rect.x0; xx < rect.x1; xx += step) {
      const i = (yy * img.width + xx) * 3;
      values.push(Math.max(img.data[i]!, img.data[i + 1]!, img.data[i + 2]!));
    }
  }
  if (values.length === 0) return 1;
  values.sort((a, b) => a - b);
  const bright = Math.max(1, values[Math.floor(0.95 * (values.length - 1))]!);
  const gain = Math.min(PPE_THRESHOLDS.maxExposureGain, (PPE_THRESHOLDS.exposureTarget * 255) / bright);
  return gain >= PPE_THRESHOLDS.minExposureGain ? Math.round(gain * 100) / 100 : 1;
}

/** A copy of `rect` of the image brightened by `gain` (the image itself when the gain is 1), and where the rect lies in it. */
function brightened(img: RawImage, r: Rect, gain: number): { img: RawImage; rect: Rect } {
  const rect = clipRect(r, img);
  if (gain === 1 || !rect) return { img, rect: r };
  const width = rect.x1 - rect.x0;
  const height = rect.y1 - rect.y0;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const from = ((rect.y0 + y) * img.width + rect.x0) * 3;
    for (let i = 0; i < width * 3; i++) data[y * width * 3 + i] = Math.min(255, Math.round(img.data[from + i]! * gain));
  }
  return { img: { data, width, height }, rect: { x0: 0, y0: 0, x1: width, y1: height } };
}


interface Hsv {
  h: number;
  s: number;
  v: number;
}

function* pixels(img: RawImage, r: Rect): Generator<[number, number, number]> {
  for (let y = r.y0; y < r.y1; y++) {
    let i = (y * img.width + r.x0) * 3;
    for (let x = r.x0; x < r.x1; x++, i += 3) yield [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
  }
}

function kp(person: PersonDetection, part: string): Keypoint | undefined {
  const k = person.keypoints.find((p) => p.part === part);
  return k && k.score >= PPE_THRESHOLDS.keypointScore ? k : undefined;
}

function dist(a: Keypoint, b: Keypoint): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/** Head geometry in working pixels: centre x, eye line y, head width. */
export interface HeadGeometry {
  cx: number;
  eyeY: number;
  width: number;
  from: PpeScores['headFrom'];
}

/** Estimates where the head is from keypoints, falling back to the shoulders, then the box. */
export function headGeometry(person: PersonDetection): HeadGeometry {
  const [bx, by, bw, bh] = person.box;
  const nose = kp(person, 'nose');
  const le = kp(person, 'leftEye');
  const re = kp(person, 'rightEye');
  const lear = kp(person, 'leftEar');
  const rear = kp(person, 'rightEar');
  const ls = kp(person, 'leftShoulder');
  const rs = kp(person, 'rightShoulder');
  const face = [nose, le, re, lear, rear].filter((k): k is Keypoint => k !== undefined);
  const shoulderW = ls && rs ? dist(ls, rs) : 0;
  const clampW = (w: number): number => Math.min(Math.max(w, bw * 0.12, bh * 0.05), bw * 0.9);
  if (face.length >= 2) {
    const estimates = [shoulderW * 0.42];
    if (le && re) estimates.push(dist(le, re) * 2.3);
    if (lear && rear) estimates.push(dist(lear, rear) * 1.1);
    const ear = lear ?? rear;
    const eye = le ?? re;
    if (ear && (nose ?? eye)) estimates.push(dist(ear, (nose ?? eye)!) * 1.6);
    const width = clampW(Math.max(...estimates));
    const eyes = [le, re].filter((k): k is Keypoint => k !== undefined);
    const ears = [lear, rear].filter((k): k is Keypoint => k !== undefined);
    let eyeY: number;
    if (eyes.length > 0) eyeY = eyes.reduce((s, k) => s + k.y, 0) / eyes.length;
    else if (ears.length > 0) eyeY = ears.reduce((s, k) => s + k.y, 0) / ears.length - 0.05 * width;
    else eyeY = nose!.y - 0.2 * width;
    let cx = face.reduce((s, k) => s + k.x, 0) / face.length;
    // Profile view: the skull (and the hat) extends from the face back over the single visible ear.
    const lone = lear && !rear ? lear : rear && !lear ? rear : undefined;
    if (lone && nose) cx = 0.6 * lone.x + 0.4 * nose.x;
    return { cx, eyeY, width, from: 'face' };
  }
  if (ls && rs && shoulderW > 0) {
    const width = clampW(shoulderW * 0.45);
    return { cx: (ls.x + rs.x) / 2, eyeY: (ls.y + rs.y) / 2 - 1.15 * width, width, from: 'shoulders' };
  }
  const width = clampW(Math.min(bw * 0.4, bh * 0.16));
  return { cx: bx + bw / 2, eyeY: by + 0.95 * width, width, from: 'box' };
}

/** Colour bands of fluorescent fabrics (hue in degrees). */
export const FLUO = {
  /** Yellow-green: lime hues are rare in ordinary clothing, so paler (washed-out) pixels count. */
  yellow: { hueMin: 52, hueMax: 100, sat: 0.45, satLime: 0.22, limeFrom: 62, val: 0.55 },
  /** Orange / red-orange. */
  orange: { hueMin: 6, hueMax: 36, sat: 0.7, val: 0.65 },
} as const;

function isFluoYellow(c: Hsv): boolean {
  const y = FLUO.yellow;
  if (c.h < y.hueMin || c.h > y.hueMax || c.v < y.val) return false;
  return c.s >= (c.h >= y.limeFrom ? y.satLime : y.sat);
}

function isFluoOrange(c: Hsv): boolean {
  const o = FLUO.orange;
  return c.h >= o.hueMin && c.h <= o.hueMax && c.s >= o.sat && c.v >= o.val;
}

/** Torso box in working pixels, from shoulders and hips, or from the person box. */
export function torsoRect(person: PersonDetection, head: HeadGeometry): Rect {
  const [bx, by, bw, bh] = person.box;
  const ls = kp(person, 'leftShoulder');
  const rs = kp(person, 'rightShoulder');
  const lh = kp(person, 'leftHip');
  const rh = kp(person, 'rightHip');
  if (ls && rs) {
    const sx = [ls.x, rs.x];
    const shoulderY = (ls.y + rs.y) / 2;
    const hips = [lh, rh].filter((k): k is Keypoint => k !== undefined);
    const sw = Math.max(Math.abs(ls.x - rs.x), head.width * 1.2);
    const hipY = hips.length > 0 ? hips.reduce((s, k) => s + k.y, 0) / hips.length : shoulderY + sw * 1.3;
    const cx = (sx[0]! + sx[1]!) / 2;
    return { x0: cx - sw * 0.45, x1: cx + sw * 0.45, y0: shoulderY + (hipY - shoulderY) * 0.08, y1: shoulderY + (hipY - shoulderY) * 0.9 };
  }
  // No shoulders: the torso sits below the head, inside the person box.
  return torsoBelowHead(head, { x0: bx + bw * 0.15, x1: bx + bw * 0.85, y0: by, y1: by + bh });
}

/** The torso below a head when no shoulders are known: 2 head widths wide, about 2.5 tall, cut to `bounds`. */
export function torsoBelowHead(head: Pick<HeadGeometry, 'cx' | 'eyeY' | 'width'>, bounds: Rect): Rect {
  const top = head.eyeY + 1.3 * head.width;
  return { x0: Math.max(bounds.x0, head.cx - 1.0 * head.width), x1: Math.min(bounds.x1, head.cx + 1.0 * head.width), y0: top, y1: Math.min(bounds.y1, top + 2.4 * head.width) };
}

/**
 * Fraction of a torso rectangle's pixels that are fluorescent yellow-green or orange (the input of
 * the hi-vis gate, {@link PPE_THRESHOLDS}.hiVisMinFluorescent); 0 outside the image. The training
 * script measures its hold-out torsos with it, so the hi-vis threshold is picked with the gate.
 */
export function fluorescentFraction(img: RawImage, r: Rect): number {
  return torsoStats(img, r)?.hiVis ?? 0;
}

/** The hi-vis gate of the learned judge: enough of the torso is fluorescent ({@link PPE_THRESHOLDS}.hiVisMinFluorescent). */
export function passesFluorescentGate(fluorescent: number): boolean {
  return fluorescent >= PPE_THRESHOLDS.hiVisMinFluorescent;
}

/**
 * A torso rectangle's colours in one pass (brightened by `gain`): its fluorescent yellow-green and
 * orange fractions (the gate) and its share of vest colour at any light ({@link VEST_SHADE}).
 */
function torsoStats(img: RawImage, r: Rect, gain = 1): Pick<PpeScores, 'hiVisYellow' | 'hiVisOrange' | 'hiVis' | 'vestShade'> | null {
  const rect = clipRect(r, img);
  if (!rect) return null;
  const { yellow: Y, orange: O, val } = VEST_SHADE;
  let n = 0;
  let yellow = 0;
  let orange = 0;
  let shade = 0;
  for (const [red, g, b] of pixels(img, rect)) {
    n++;
    const hsv = rgbToHsv(Math.min(255, red * gain), Math.min(255, g * gain), Math.min(255, b * gain));
    if (isFluoYellow(hsv)) yellow++;
    else if (isFluoOrange(hsv)) orange++;
    if (hsv.v >= val && ((hsv.h >= Y.hueMin && hsv.h <= Y.hueMax && hsv.s >= Y.sat) || (hsv.h >= O.hueMin && hsv.h <= O.hueMax && hsv.s >= O.sat))) shade++;
  }
  if (n === 0) return null;
  const hiVisYellow = yellow / n;
  const hiVisOrange = orange / n;
  return { hiVisYellow, hiVisOrange, hiVis: hiVisYellow + hiVisOrange, vestShade: shade / n };
}

/**
 * Fluorescent hues at any light (issue 51): yellow-green and orange as saturated as only
 * fluorescent dyes are, however dim — the straps of an open orange vest in a worker's own shadow
 * measured hue 11–16°, saturation 0.9–1.0, value 0.25–0.45, below the gate's value floor
 * ({@link FLUO}); skin and khaki stay below these saturations, and orange stops at 24° (up to 36°
 * a worker's tan leather bib overalls on safety-vest-v4 passed too).
 */
export const VEST_SHADE = { yellow: { hueMin: 52, hueMax: 100, sat: 0.8 }, orange: { hueMin: 6, hueMax: 24, sat: 0.88 }, val: 0.2, min: 0.03 } as const;

/** The share of a torso rectangle's pixels (brightened by `gain`) of a fluorescent hue at any light ({@link VEST_SHADE}). */
export function vestShade(img: RawImage, r: Rect, gain = 1): number {
  return torsoStats(img, r, gain)?.vestShade ?? 0;
}

/**
 * The exposure gain of a worker's torso measured on their face and torso, from the eyes down (issue
 * 51: not the headwear above — a white hard hat in the sun kept a backlit worker's lime vest at its
 * own dim light): `head` the head's middle, eye line and width.
 */
function torsoGain(img: RawImage, head: Pick<HeadGeometry, 'cx' | 'eyeY' | 'width'>, torso: Rect): number {
  return exposureGain(img, { x0: Math.min(torso.x0, head.cx - head.width / 2), x1: Math.max(torso.x1, head.cx + head.width / 2), y0: head.eyeY, y1: torso.y1 });
}

/** The head and torso regions of a person, the torso's fluorescent fractions, and the scores to fill in. */
function measure(img: RawImage, person: PersonDetection): { head: HeadGeometry; torso: Rect; scores: PpeScores; gain: number } {
  const head = headGeometry(person);
  const torso = torsoRect(person, head);
  const gain = torsoGain(img, head, torso);
  const ts = torsoStats(img, torso, gain);
  const scores: PpeScores = {
    person: person.score,
    headWidthPx: head.width,
    headFrom: head.from,
    hardHat: 0,
    torsoHeightPx: Math.max(0, torso.y1 - torso.y0),
    hiVisYellow: ts?.hiVisYellow ?? 0,
    hiVisOrange: ts?.hiVisOrange ?? 0,
    hiVis: 0,
    vestShade: ts?.vestShade ?? 0,
  };
  return { head, torso, scores, gain };
}

/** The head a keypoint geometry places, as a box: its width across, from the crown (0.75 widths above the eyes) to the chin. */
function geometryHeadBox(g: HeadGeometry): [number, number, number, number] {
  return [g.cx - g.width / 2, g.eyeY - 0.75 * g.width, g.width, 1.3 * g.width];
}

const roundBox = (b: readonly number[]): [number, number, number, number] => [Math.round(b[0]!), Math.round(b[1]!), Math.round(b[2]!), Math.round(b[3]!)];

/** Whether the head is large enough and placed by keypoints (a box-only guess: see {@link boxHeadJudged}). */
function headJudgeable(head: HeadGeometry): boolean {
  return head.width >= PPE_THRESHOLDS.minHeadWidthPx && head.from !== 'box';
}

/**
 * Whether a head placed from the person box alone is judged: only when nothing else placed that
 * person's head (no detected or face head on it) and it is at least {@link PPE_THRESHOLDS}.minBoxHeadWidthPx
 * wide — a close-up seen from behind, where the top of the box is the head.
 */
function boxHeadJudged(head: HeadGeometry, otherHead: boolean): boolean {
  return head.from === 'box' && !otherHead && head.width >= PPE_THRESHOLDS.minBoxHeadWidthPx;
}

/** Class probabilities of torso crops: their embedding by the tuned torso backbone, through the torso classifier. */
async function judgeTorsos(model: PpeModelFile, img: RawImage, rects: Rect[], gains: readonly number[] = []): Promise<number[][]> {
  const inputs = await embedCrops(
    'torso',
    rects.map((rect, i) => brightened(img, rect, gains[i] ?? 1)),
  );
  return inputs.map((x) => predictMlp(model.torso, x));
}

/**
 * Head crops judged: the head classifier's probabilities — on the EfficientNet-Lite2 embedding
 * (liteBackbone.ts, ADR 0028) or on the tuned head backbone's, whichever the model file names — and,
 * for the crops from `checkFrom` on (heads on no person), the head check's p(background), that the
 * crop shows no head (0 for the others), on the Lite2 embedding.
 */
async function judgeHeads(model: PpeModelFile, img: RawImage, rects: Rect[], checkFrom: number): Promise<{ p: number[][]; background: number[] }> {
  const lite = model.headEmbedding === HEAD_EMBEDDING_ID;
  const offset = lite ? 0 : checkFrom;
  const liteInputs = await liteEmbedCrops(liteBackboneFile(model), img, rects.slice(offset));
  const inputs = lite ? liteInputs : await embedCrops('head', rects.map((rect) => ({ img, rect })));
  return { p: inputs.map((x) => predictMlp(model.head, x)), background: rects.map((_, i) => (i < checkFrom ? 0 : predictMlp(model.headCheck, liteInputs[i - offset]!)[1]!)) };
}

/** Head class probabilities, in the head classifier's order. */
interface HeadProbabilities {
  hat: number;
  bare: number;
  other: number;
}

const headProbabilities = (p: readonly number[]): HeadProbabilities => ({ hat: p[0]!, bare: p[1]!, other: p[2]! });

/**
 * The face head source (issue 26): a face BlazeFace finds where no worker's head is — a close-up
 * whose head or hat fills the frame, where the person and head detectors find nobody — becomes a
 * head box, judged by the head classifier like a detected head. The box is where labelled heads lie
 * around the faces BlazeFace finds on the training subsets other than the cross-validated one
 * (`scripts/train/faceHeads.ts`, medians; offsets in face widths left/right, face heights
 * above/below): the headwear above the brows is most of it. A face counts only when a second
 * model confirms it: the face mesh of `@vladmandic/human` (run on BlazeFace's own enlarged crop)
 * must give it at least `minMeshScore`. BlazeFace alone scores false faces on ffmpeg's test
 * patterns up to 0.48 (testsrc2) and 0.63 (mandelbrot, which made a worker there before the mesh
 * check); the mesh gives every false face of eight test sources that is `minWidthPx` wide or more
 * and scores ≥ 0.15 at most 0.11 (mandelbrot's 0), real faces mostly 0.9–1 (ADR 0026; docs/adr/history/ppe-issue-26-measurements.md). `minScore` is BlazeFace's floor below which no face is
 * looked at. `minWidthPx` (face width in working pixels) leaves distant faces to the person and head
 * detectors.
 */
export const FACE_HEAD = {
  minScore: 0.6,
  minMeshScore: 0.5,
  minWidthPx: 24,
  left: 0.29,
  right: 0.28,
  above: 0.96,
  below: 0.17,
  /** A face head overlapping a worker's head by more than this (of the smaller box) is that worker's, not a new one. */
  overlap: 0.3,
} as const;

type Box = [number, number, number, number];

/** The head box a face implies ({@link FACE_HEAD}), clipped to the image. */
export function faceHeadBox(face: Pick<DetectedFace, 'box'>, width: number, height: number): Box {
  const [x, y, w, h] = face.box;
  const x0 = Math.max(0, x - FACE_HEAD.left * w);
  const y0 = Math.max(0, y - FACE_HEAD.above * h);
  const x1 = Math.min(width, x + w + FACE_HEAD.right * w);
  const y1 = Math.min(height, y + h + FACE_HEAD.below * h);
  return [x0, y0, Math.max(1, x1 - x0), Math.max(1, y1 - y0)];
}

/**
 * The faces that could become face heads before the mesh has looked at them: enough score and
 * size, and a head box overlapping none of `taken`; the larger face first.
 */
export function openFaces(faces: readonly DetectedFace[], taken: readonly Box[], width: number, height: number): DetectedFace[] {
  return faces
    .filter((f) => f.score >= FACE_HEAD.minScore && f.box[2] >= FACE_HEAD.minWidthPx)
    .filter((f) => !taken.some((t) => overlapOfSmaller(t, faceHeadBox(f, width, height)) > FACE_HEAD.overlap))
    .sort((a, b) => b.box[2] - a.box[2]);
}

/**
 * The heads {@link FACE_HEAD} takes from faces: each of the {@link openFaces} the face mesh
 * confirmed (`meshScore` ≥ `minMeshScore`; a face the mesh never scored is not taken) whose head box
 * overlaps no other face head already taken (the larger face first), as {@link DetectedHead}s (the
 * face's score).
 */
export function faceHeads(faces: readonly DetectedFace[], taken: readonly Box[], width: number, height: number): DetectedHead[] {
  const out: DetectedHead[] = [];
  for (const f of openFaces(faces, taken, width, height)) {
    if ((f.meshScore ?? 0) < FACE_HEAD.minMeshScore) continue;
    const box = faceHeadBox(f, width, height);
    if (out.some((h) => overlapOfSmaller(h.box, box) > FACE_HEAD.overlap)) continue;
    out.push({ box, score: f.score });
  }
  return out;
}

/**
 * `faces` with the face mesh's confidence ({@link DetectedFace}.meshScore): one pass of BlazeFace
 * with the mesh over the image, each face given the score of the meshed face that overlaps it most
 * (0 when none does). Faces that already carry a mesh score are kept as they are; with none to
 * score, nothing runs.
 */
export async function withMeshScores(img: RawImage, faces: readonly DetectedFace[]): Promise<DetectedFace[]> {
  if (faces.every((f) => f.meshScore !== undefined)) return [...faces];
  const meshed = await detectFacesRaw(img, { minScore: FACE_HEAD.minScore, mesh: true });
  return faces.map((f) => {
    if (f.meshScore !== undefined) return f;
    // The meshed face lying at least half on this one, the most overlapping (IoU plus overlap) first.
    let best: DetectedFace | undefined;
    let bestOverlap = 0.5;
    for (const m of meshed) {
      const inside = overlapOfSmaller(m.box, f.box);
      const o = iou(m.box, f.box) + inside;
      if (inside >= 0.5 && o > bestOverlap) [best, bestOverlap] = [m, o];
    }
    return { ...f, meshScore: best?.meshScore ?? 0 };
  });
}

/**
 * Which detected head belongs to each person, the most confident heads first, each to one free
 * person: one whose keypoints place a head within ¾ of its width of the detected head's centre
 * (close-ups, where the head sits lower in the box), or else whose box holds that centre across
 * and from 15 % above the box's top to 30 % of its height below it. Among several, the nearest.
 */
export function matchDetectedHeads(persons: readonly PersonDetection[], heads: readonly DetectedHead[]): Array<DetectedHead | undefined> {
  const out: Array<DetectedHead | undefined> = persons.map(() => undefined);
  const placed = persons.map((p) => {
    const g = headGeometry(p);
    return g.from === 'box' ? null : { x: g.cx, y: g.eyeY - 0.3 * g.width, reach: 0.75 * g.width };
  });
  for (const head of [...heads].sort((a, b) => b.score - a.score)) {
    const cx = head.box[0] + head.box[2] / 2;
    const cy = head.box[1] + head.box[3] / 2;
    let best = -1;
    let bestDistance = Infinity;
    persons.forEach((p, i) => {
      if (out[i]) return;
      const k = placed[i];
      const [bx, by, bw, bh] = p.box;
      let d: number;
      if (k && Math.abs(cx - k.x) <= k.reach && Math.abs(cy - k.y) <= k.reach) d = Math.hypot(cx - k.x, cy - k.y);
      else if (cx >= bx && cx <= bx + bw && cy >= by - 0.15 * bh && cy <= by + 0.3 * bh) d = Math.abs(cx - (bx + bw / 2));
      else return;
      if (d < bestDistance) {
        bestDistance = d;
        best = i;
      }
    });
    if (best >= 0) out[best] = head;
  }
  return out;
}

/**
 * PPE verdicts for persons already detected on a decoded working copy (working pixels), by the
 * learned classifier: a hard hat is `seen` when p(hat) reaches the model's `hatSeen`; the head wears
 * no hard hat when p(bare) + p(other headgear) reaches `noHatSeen` — `headgear` (a cap, sun hat,
 * hood) or `bare`, whichever is likelier; otherwise `unknown` (also for small heads and heads
 * placed from the box alone narrower than {@link PPE_THRESHOLDS}.minBoxHeadWidthPx, unless the head
 * detector found that person's head); likewise hi-vis
 * `seen` / `absent` / `unknown` on the torso. A head has up to two crops: around the keypoint head
 * geometry, and around the box of the head the head detector found on that person
 * ({@link matchDetectedHeads}); both are judged and their probabilities averaged. A detected head
 * that belongs to no person (the person detector missed the worker: crowds, small or partly hidden
 * workers, linemen seen from below) is judged alone and reported as one more worker after the
 * persons, with the body box such a head implies ({@link headOnlyWorkerBox}); its torso is looked for
 * below the head ({@link torsoBelowHead}), and hi-vis is `seen` when a vest is found there, otherwise
 * `unknown` (never `absent`: with no body detected that region is a guess). Every
 * judged crop of the image goes through its kind's tuned backbone in batches (ppeEmbedding.ts).
 * `heads`: the image's detected heads, when already known (else the head detector runs here).
 * Faces BlazeFace finds where no head was judged or detected ({@link faceHeads}) are heads too: a
 * person placed by its box alone takes the one on it, the others are workers of their own like a
 * head on no person (`headFrom: 'faceDetector'`). `faces`: the image's faces, when already known
 * (else BlazeFace runs here, on the whole image).
 */
export async function analyzePersons(img: RawImage, persons: PersonDetection[], heads?: readonly DetectedHead[], faces?: readonly DetectedFace[]): Promise<PpePerson[]> {
  const model = loadPpeModel();
  const detector = await loadHeadDetector();
  const placed = await placeHeads(img, persons, heads ?? (await detectHeads(img, detector)), faces);
  const placeOf = headPlacer(detector.model.crop);
  const alone = headsOnNoPerson(img, placed, placeOf);
  const measured = measurePersons(img, persons, placed, placeOf);
  const headCrops = measured.flatMap((m) => m.headRects.filter((r): r is Rect => r !== null).map((rect) => ({ m, rect })));
  const torsos = measured.filter((m) => m.torsoJudged);
  const aloneTorsos = alone.flatMap((a) => (a.torso ? [a.torso] : []));
  const [{ p: headProbs, background }, torsoProbs] = await Promise.all([
    judgeHeads(model, img, [...headCrops.map((c) => c.rect), ...alone.map((a) => headCropRect(a.place.cx, a.place.eyeY, a.place.width))], headCrops.length),
    judgeTorsos(
      model,
      img,
      [...torsos.map((m) => m.torso), ...aloneTorsos.map((t) => t.rect)],
      [...torsos.map((m) => m.gain), ...aloneTorsos.map((t) => t.gain)],
    ),
  ]);
  const headP = new Map<MeasuredPerson, number[][]>();
  headCrops.forEach((c, i) => headP.set(c.m, [...(headP.get(c.m) ?? []), headProbs[i]!]));
  const torsoP = new Map(torsos.map((m, i) => [m, torsoProbs[i]!]));
  const judged = measured.map((m) => judgedPerson(model.thresholds, img, m, placed, headP.get(m), torsoP.get(m)));
  const aloneTorsoP = new Map(aloneTorsos.map((t, i) => [t, torsoProbs[torsos.length + i]!]));
  // A head on no person is a worker only when the head check takes it for a head (ADR 0028): the
  // head and face detectors fire on test patterns (a pie chart, mandelbrot), the check does not.
  const headsAlone = alone.flatMap((a, i): PpePerson[] =>
    background[headCrops.length + i]! >= model.thresholds.notHead
      ? []
      : [aloneWorker(model.thresholds, img, a, placed, headProbs[headCrops.length + i]!, a.torso ? aloneTorsoP.get(a.torso) : undefined)],
  );
  return [...judged, ...headsAlone];
}

/** The heads an image's persons get beside their keypoints: detected heads and faces turned heads. */
interface PlacedHeads {
  /** The head detector's heads. */
  found: readonly DetectedHead[];
  /** Per person, the detected (or face) head matched to it. */
  matched: Array<DetectedHead | undefined>;
  /** Heads made of faces where no worker's head is ({@link FACE_HEAD}). */
  fromFaces: DetectedHead[];
  fromFace: Set<DetectedHead>;
}

/**
 * Matches the detected heads to the persons, then the faces where no worker's head is (close-ups,
 * FACE_HEAD): a person whose head nothing placed takes the face head on it; the others are workers
 * of their own, like a detected head on no person.
 */
async function placeHeads(img: RawImage, persons: readonly PersonDetection[], found: readonly DetectedHead[], faces?: readonly DetectedFace[]): Promise<PlacedHeads> {
  const matched = matchDetectedHeads(persons, found);
  const geometries = persons.map((p) => headGeometry(p));
  const taken = [...found.map((h) => h.box), ...geometries.flatMap((g) => (headJudgeable(g) ? [geometryHeadBox(g)] : []))];
  const open = openFaces(faces ?? (await detectFacesRaw(img, { minScore: FACE_HEAD.minScore })), taken, img.width, img.height);
  const fromFaces = open.length > 0 ? faceHeads(await withMeshScores(img, open), taken, img.width, img.height) : [];
  if (fromFaces.length > 0) {
    const headless = persons.flatMap((p, i) => (!matched[i] && !headJudgeable(geometries[i]!) ? [i] : []));
    matchDetectedHeads(
      headless.map((i) => persons[i]!),
      fromFaces,
    ).forEach((h, j) => {
      if (h) matched[headless[j]!] = h;
    });
    // A close-up placed by its box alone whose head (the top of the box) the face head overlaps: that
    // face is its head, not a second worker.
    for (const i of headless) {
      if (matched[i] || geometries[i]!.from !== 'box') continue;
      const box = geometryHeadBox(geometries[i]!);
      const face = fromFaces.find((h) => !matched.includes(h) && overlapOfSmaller(h.box, box) > FACE_HEAD.overlap);
      if (face) matched[i] = face;
    }
  }
  return { found, matched, fromFaces, fromFace: new Set(fromFaces) };
}

type HeadPlace = ReturnType<typeof headBoxPlace>;

/** Where a detected head puts the head, or null when it is too small to judge. */
function headPlacer(geometry: Parameters<typeof headBoxPlace>[1]): (head: DetectedHead) => HeadPlace | null {
  return (head) => {
    const place = headBoxPlace(head.box, geometry);
    return place.width >= PPE_THRESHOLDS.minHeadWidthPx ? place : null;
  };
}

/** A head on no detected person, where it puts the head, and the torso looked for below it. */
interface AloneHead {
  head: DetectedHead;
  place: HeadPlace;
  torso: { rect: Rect; stats: NonNullable<ReturnType<typeof torsoStats>>; gain: number } | null;
}

/**
 * The heads on no detected person: each a worker of its own, its torso looked for below the head
 * (no shoulders known). A detected head cut by the frame's top edge is not one: the top of the head,
 * where a hard hat sits, is out of the picture (issue 51: the bulbs of ffmpeg's mandelbrot, cut by
 * the top edge as it zooms, passed the head check as heads wearing hard hats; no real head in the
 * clips or photos was cut so). A face head is the face mesh's: its box reaches above the face and
 * may be clipped at the top.
 */
function headsOnNoPerson(img: RawImage, placed: PlacedHeads, placeOf: (head: DetectedHead) => HeadPlace | null): AloneHead[] {
  const cutByTop = (head: DetectedHead): boolean => head.box[1] < PPE_THRESHOLDS.headCutByTop * head.box[3];
  return [...placed.found, ...placed.fromFaces].flatMap((head) => {
    const place = placed.matched.includes(head) || (!placed.fromFace.has(head) && cutByTop(head)) ? null : placeOf(head);
    if (!place) return [];
    const rect = torsoBelowHead(place, { x0: 0, x1: img.width, y0: 0, y1: img.height });
    if (rect.y1 - rect.y0 < PPE_THRESHOLDS.minTorsoHeightPx) return [{ head, place, torso: null }];
    // Lit as a person's torso is (issue 51: the backlit lime vest of a worker the person detector
    // missed was judged unlit, "hi-vis missing").
    const gain = torsoGain(img, place, rect);
    const stats = torsoStats(img, rect, gain);
    return [{ head, place, torso: stats ? { rect, stats, gain } : null }];
  });
}

/** A person measured: its keypoint geometry, the head crops to judge (own, detected) and whether its torso is judged. */
type MeasuredPerson = ReturnType<typeof measurePersons>[number];

function measurePersons(img: RawImage, persons: readonly PersonDetection[], placed: PlacedHeads, placeOf: (head: DetectedHead) => HeadPlace | null) {
  return persons.map((person, i) => {
    const m = { index: i, ...measure(img, person) };
    const head = placed.matched[i];
    const place = head ? placeOf(head) : null;
    const detectedRect = place ? headCropRect(place.cx, place.eyeY, place.width) : null;
    const own = headJudgeable(m.head) || boxHeadJudged(m.head, detectedRect !== null);
    return { person, ...m, headRects: [own ? headCropRect(m.head.cx, m.head.eyeY, m.head.width) : null, detectedRect], torsoJudged: m.scores.torsoHeightPx >= PPE_THRESHOLDS.minTorsoHeightPx };
  });
}

type Thresholds = PpeModelFile['thresholds'];

const hatVerdict = (T: Thresholds, p: HeadProbabilities): HardHatVerdict =>
  p.hat >= T.hatSeen ? 'seen' : p.bare + p.other >= T.noHatSeen ? (p.other > p.bare ? 'headgear' : 'bare') : 'unknown';

const headScores = (p: HeadProbabilities): Pick<PpeScores, 'hatProbability' | 'bareProbability' | 'otherHeadgearProbability' | 'hardHat'> => ({
  hatProbability: p.hat,
  bareProbability: p.bare,
  otherHeadgearProbability: p.other,
  hardHat: p.hat - p.bare - p.other,
});

/** `absent` only where a torso without a vest is evidence of a missing vest (`mayBeAbsent`). */
const hiVisVerdict = (T: Thresholds, pVest: number, pNone: number, fluorescent: number, mayBeAbsent: boolean): HiVisVerdict =>
  pVest >= T.vestSeen ? (passesFluorescentGate(fluorescent) ? 'seen' : 'unknown') : mayBeAbsent && pNone >= T.vestAbsent ? 'absent' : 'unknown';

/** A detected person's verdicts from its head crops' probabilities (averaged class by class) and its torso's. */
function judgedPerson(T: Thresholds, img: RawImage, m: MeasuredPerson, placed: PlacedHeads, head: number[][] | undefined, torso: number[] | undefined): PpePerson {
  const { scores } = m;
  let hardHat: HardHatVerdict = 'unknown';
  if (head) {
    const p = headProbabilities(head[0]!.map((_, c) => head.reduce((s, q) => s + q[c]!, 0) / head.length));
    Object.assign(scores, headScores(p));
    if (m.headRects[1]) {
      if (placed.fromFace.has(placed.matched[m.index]!)) scores.headFromFace = true;
      else scores.headDetected = true;
    }
    hardHat = hatVerdict(T, p);
  }
  let hiVis: HiVisVerdict = 'unknown';
  if (torso) {
    const [pVest = 0, pNone = 0] = torso;
    scores.hiVisProbability = pVest;
    scores.hiVis = pVest;
    // A missing vest needs a torso large enough to see, with no vest colour on it in any light.
    const shaded = (scores.vestShade ?? 0) >= VEST_SHADE.min;
    hiVis = hiVisVerdict(T, pVest, pNone, scores.hiVisYellow + scores.hiVisOrange, scores.torsoHeightPx >= PPE_THRESHOLDS.minAbsentTorsoPx && !shaded);
    // Nor with reflective tape on it: a safety garment of a colour the model does not know.
    if (hiVis === 'absent') {
      scores.tape = tapeBand(img, m.torso, m.gain);
      if (scores.tape > 0) hiVis = 'unknown';
    }
  }
  const matched = placed.matched[m.index];
  const headBox = matched && m.headRects[1] ? matched.box : m.headRects[0] ? geometryHeadBox(m.head) : undefined;
  return { box: m.person.box, ...(head && headBox ? { head: roundBox(headBox) } : {}), hardHat, hiVis, scores };
}

/**
 * A head on no person as a worker of its own. Only a vest found below it counts (`seen`): with no
 * body detected, the region below the head is a guess (the worker may bend over, sit, be hidden, or
 * the head be a false one), so a vest missing from it is no evidence of a missing vest and never
 * `absent` (which would raise a violation).
 */
function aloneWorker(T: Thresholds, img: RawImage, a: AloneHead, placed: PlacedHeads, headP: number[], pTorso: number[] | undefined): PpePerson {
  const p = headProbabilities(headP);
  const { torso } = a;
  const fromFace = placed.fromFace.has(a.head);
  const scores: PpeScores = {
    person: a.head.score,
    headWidthPx: a.place.width,
    headFrom: fromFace ? 'faceDetector' : 'detector',
    torsoHeightPx: torso ? torso.rect.y1 - torso.rect.y0 : 0,
    hiVisYellow: torso?.stats.hiVisYellow ?? 0,
    hiVisOrange: torso?.stats.hiVisOrange ?? 0,
    hiVis: pTorso?.[0] ?? 0,
    ...headScores(p),
    ...(fromFace ? { headFromFace: true } : { headDetected: true }),
    ...(pTorso ? { hiVisProbability: pTorso[0] } : {}),
  };
  const hiVis = torso && pTorso ? hiVisVerdict(T, pTorso[0]!, pTorso[1]!, torso.stats.hiVis, false) : 'unknown';
  return { box: headOnlyWorkerBox(a.head, img.width, img.height), head: roundBox(a.head.box), hardHat: hatVerdict(T, p), hiVis, scores };
}

/**
 * Detects persons on an already decoded RGB image and judges their PPE (see {@link analyzePpe});
 * boxes are in pixels of `img`. Images larger than the detector's working size are downscaled.
 * `closeUp: false` leaves out the close-up pass of {@link judgeFrame}.
 */
export async function analyzePpeRaw(img: RawImage, opts: { closeUp?: boolean } = {}): Promise<PpePerson[]> {
  return (await judgeFrameRaw(img, opts)).persons;
}

/** A face BlazeFace found on a frame the judge looked at: its tight box in pixels of the frame, and its score. */
export interface FoundFace {
  box: Box;
  score: number;
}

/**
 * {@link analyzePpeRaw}, and the faces BlazeFace found on the whole frame at its own default score
 * ({@link FACE_DEFAULT_MIN_SCORE}), in pixels of `img`: the same search gives the judge its face heads
 * (those scoring {@link FACE_HEAD}.minScore) and the cover the whole frame's faces (issue 39: one
 * search of the frame, not one in each step).
 */
export async function judgeFrameRaw(img: RawImage, opts: { closeUp?: boolean } = {}): Promise<{ persons: PpePerson[]; faces: FoundFace[] }> {
  const { work, scale } = await workingCopy(img);
  const judged = await judgeFrameAndFaces(work, opts);
  return {
    persons: inImagePixels(judged.persons, scale),
    faces: judged.faces.map((f) => ({ box: f.box.map((v) => v * scale) as Box, score: f.score })),
  };
}

/** The close-up pass of {@link judgeFrame} alone on `img` (any size; boxes in its pixels): for a frame where nothing else found a worker. */
export function closeUpPpeRaw(img: RawImage): Promise<PpePerson[]> {
  return onWorkingCopy(img, closeUpWorkers);
}

/** Runs `judge` on a working copy of `img` no larger than the detector's working size; boxes back in pixels of `img`. */
async function onWorkingCopy(img: RawImage, judge: (work: RawImage) => Promise<PpePerson[]>): Promise<PpePerson[]> {
  const { work, scale } = await workingCopy(img);
  return inImagePixels(await judge(work), scale);
}

/** `img` no larger than the detector's working size (itself when it is not larger), and the scale back (image pixels = working pixels × `scale`). */
async function workingCopy(img: RawImage): Promise<{ work: RawImage; scale: number }> {
  const longest = Math.max(img.width, img.height);
  if (longest <= DETECT_MAX_SIDE) return { work: img, scale: 1 };
  const width = Math.max(1, Math.round((img.width * DETECT_MAX_SIDE) / longest));
  const height = Math.max(1, Math.round((img.height * DETECT_MAX_SIDE) / longest));
  const data = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize({ width, height, fit: 'fill' })
    .raw()
    .toBuffer();
  return { work: { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width, height }, scale: img.width / width };
}

/** Workers judged on a working copy, their boxes in pixels of the image (image pixels = working pixels × `scale`). */
function inImagePixels(persons: PpePerson[], scale: number): PpePerson[] {
  return persons.map((p) => ({ ...p, box: scaleBox(p.box, scale), ...(p.head ? { head: scaleBox(p.head, scale) } : {}) }));
}

/**
 * The workers of one frame (working pixels) and their verdicts: its persons detected, then
 * {@link analyzePersons}. A frame where that finds no worker at all — no person, no head on its
 * own, no face head — is looked at once more for close-ups ({@link closeUpWorkers}), unless
 * `closeUp` is false (a job's composites ration that pass: offlineAnalyzer.ts).
 */
export async function judgeFrame(img: RawImage, opts: { closeUp?: boolean } = {}): Promise<PpePerson[]> {
  return (await judgeFrameAndFaces(img, opts)).persons;
}

/**
 * {@link judgeFrame}, and the faces BlazeFace finds on the frame at its default score: one search,
 * of which the judge takes those of {@link FACE_HEAD}.minScore (the same faces as a search at that
 * score: a face below it never suppresses one above it, and the judge's frames hold far fewer than
 * BlazeFace's 20).
 */
async function judgeFrameAndFaces(img: RawImage, opts: { closeUp?: boolean }): Promise<{ persons: PpePerson[]; faces: DetectedFace[] }> {
  const { faces, sure } = await frameFaces(img);
  const workers = await analyzePersons(img, await detectPersonsRaw(img), undefined, sure);
  const persons = workers.length > 0 || opts.closeUp === false ? workers : await closeUpWorkers(img, sure);
  return { persons, faces };
}

/**
 * The faces BlazeFace finds on the whole of `img` at its default score, and those of them the judge
 * takes for face heads ({@link FACE_HEAD}.minScore): one search for the judge and the cover.
 */
export async function frameFaces(img: RawImage): Promise<{ faces: DetectedFace[]; sure: DetectedFace[] }> {
  const faces = await detectFacesRaw(img, { minScore: FACE_DEFAULT_MIN_SCORE });
  return { faces, sure: faces.filter((f) => f.score >= FACE_HEAD.minScore) };
}

/**
 * Close-ups cut by the frame's edges (ADR 0027): the persons {@link detectPersonsShrunk} finds on
 * the frame shrunk on a grey canvas — where a head and shoulders filling the picture are a whole
 * person — judged on the frame itself (working pixels). Two more person detections. `faces`: the
 * frame's, when already searched.
 */
async function closeUpWorkers(img: RawImage, faces?: readonly DetectedFace[]): Promise<PpePerson[]> {
  const closeUps = await detectPersonsShrunk(img);
  return closeUps.length > 0 ? analyzePersons(img, closeUps, undefined, faces) : [];
}

function scaleBox(box: PersonDetection['box'], s: number): PersonDetection['box'] {
  return [Math.round(box[0] * s), Math.round(box[1] * s), Math.round(box[2] * s), Math.round(box[3] * s)];
}

/**
 * Detects the persons in an image and judges, for each, whether a hard hat is worn (`seen`), the
 * head wears other headgear (`headgear`) or is bare (`bare`), or it cannot tell (`unknown`), and whether high-visibility clothing is
 * worn on the torso (`seen` / `absent` / `unknown`). Boxes are in pixels of the input image;
 * `scores` holds the measurements behind each verdict (in working pixels).
 */
export async function analyzePpe(jpeg: Buffer): Promise<{ width: number; height: number; persons: PpePerson[] }> {
  const decoded = await decodeImage(jpeg);
  const analysed = inImagePixels(await judgeFrame(decoded.work), decoded.scale);
  return { width: decoded.width, height: decoded.height, persons: analysed };
}
