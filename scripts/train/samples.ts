/**
 * Step 2 of `npm run train`: where the head and torso samples are cut (their crops are written by
 * finetune/dump-crops.ts). Two sources per photo:
 * - the run-time crops: the analyzer's own detector found a person, `headGeometry` / `torsoRect`
 *   (ppe.ts) placed the head and torso, and a labelled box matches that place;
 * - every labelled box, mapped to the same crop geometry with the median box→geometry relation
 *   measured on the matches (so small or undetected workers count too).
 * Each training-fold sample is also taken mirrored and with a small random shift and scale (seeded).
 */
import { seededRandom } from '@baret/platform';
import sharp from 'sharp';
import type { RawImage } from '../../services/analysis/src/engine/detector.js';
import { headGeometry, PPE_THRESHOLDS, torsoRect } from '../../services/analysis/src/engine/ppe.js';
import type { CropKind } from '../../services/analysis/src/engine/ppeEmbedding.js';
import { headBoxCropRect, headCropRect, type Rect } from '../../services/analysis/src/engine/ppeFeatures.js';
import type { PersonDetection } from '../../services/analysis/src/engine/types.js';
import { CV_SUBSET, type HeadLabel, type LabelledBox, type TrainingPhoto } from './data.js';
import type { Detections } from './detect.js';
import { photoKey } from './detect.js';

/** Deterministic PRNG (mulberry32), shared with the demo seed (services/platform/src/random.ts). */
export const rng = seededRandom;

/** The median of `v` (the upper one of an even count; NaN when empty). */
export function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : Number.NaN;
}

type Box = [number, number, number, number];

function iou(a: Rect, b: Rect): number {
  const ix = Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0));
  const iy = Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
  const inter = ix * iy;
  const area = (r: Rect): number => (r.x1 - r.x0) * (r.y1 - r.y0);
  return inter / (area(a) + area(b) - inter);
}

const boxRect = (b: Box): Rect => ({ x0: b[0], y0: b[1], x1: b[0] + b[2], y1: b[1] + b[3] });

/** The head geometry of a run-time person, when the analyzer would judge that head. */
function usableHead(p: PersonDetection): ReturnType<typeof headGeometry> | null {
  const g = headGeometry(p);
  return g.from !== 'box' && g.width >= PPE_THRESHOLDS.minHeadWidthPx ? g : null;
}

/** The labelled head box a run-time head geometry points at (centre inside the expected head). */
function matchHead(g: { cx: number; eyeY: number; width: number }, boxes: LabelledBox[]): LabelledBox | undefined {
  let best: LabelledBox | undefined;
  let bestD = Infinity;
  for (const b of boxes) {
    if (b.kind !== 'head') continue;
    const [x, y, w, h] = b.box;
    const cx = x + w / 2;
    const cy = y + h / 2;
    if (w < 0.45 * g.width || w > 2.2 * g.width) continue;
    const dx = Math.abs(cx - g.cx) / g.width;
    const dy = (cy - g.eyeY) / g.width;
    if (dx > 0.5 || dy < -0.9 || dy > 0.6) continue;
    const d = dx + Math.abs(dy + 0.15);
    if (d < bestD) {
      bestD = d;
      best = b;
    }
  }
  return best;
}

function matchTorso(r: Rect, boxes: LabelledBox[]): LabelledBox | undefined {
  let best: LabelledBox | undefined;
  let bestIou = 0.2;
  for (const b of boxes) {
    if (b.kind !== 'torso') continue;
    const v = iou(r, boxRect(b.box));
    if (v > bestIou) {
      bestIou = v;
      best = b;
    }
  }
  return best;
}

/** Median relation between a labelled head box and the run-time head geometry, in box units. */
export interface Calibration {
  head: Record<'hat' | 'bare', { dx: number; eye: number; width: number; n: number }>;
  torso: { x0: number; y0: number; x1: number; y1: number; n: number };
}

/**
 * Measured on the training fold of the subsets that label heads the classic way (not on
 * {@link CV_SUBSET}, whose polygon-traced boxes include hat brims; leaving it out also keeps the
 * calibration, and so every crop, the same in each of its cross-validation runs).
 */
export function calibrate(photos: TrainingPhoto[], detections: Detections): Calibration {
  const head = { hat: { dx: [] as number[], eye: [] as number[], width: [] as number[] }, bare: { dx: [] as number[], eye: [] as number[], width: [] as number[] } };
  const torso = { x0: [] as number[], y0: [] as number[], x1: [] as number[], y1: [] as number[] };
  for (const photo of photos) {
    if (photo.fold !== 'train' || photo.subset === CV_SUBSET) continue;
    for (const person of detections[photoKey(photo)] ?? []) {
      const g = usableHead(person);
      if (g && g.from === 'face') {
        const m = matchHead(g, photo.boxes);
        if (m && m.label !== 'other') {
          const [x, y, w, h] = m.box;
          const acc = head[m.label as 'hat' | 'bare'];
          acc.dx.push((g.cx - (x + w / 2)) / w);
          acc.eye.push((g.eyeY - y) / h);
          acc.width.push(g.width / w);
        }
      }
      const t = torsoRect(person, headGeometry(person));
      const mt = matchTorso(t, photo.boxes);
      if (mt) {
        const [x, y, w, h] = mt.box;
        torso.x0.push((t.x0 - x) / w);
        torso.y0.push((t.y0 - y) / h);
        torso.x1.push((t.x1 - x) / w);
        torso.y1.push((t.y1 - y) / h);
      }
    }
  }
  const h = (k: 'hat' | 'bare') => ({ dx: median(head[k].dx), eye: median(head[k].eye), width: median(head[k].width), n: head[k].dx.length });
  return {
    head: { hat: h('hat'), bare: h('bare') },
    torso: { x0: median(torso.x0), y0: median(torso.y0), x1: median(torso.x1), y1: median(torso.y1), n: torso.x0.length },
  };
}

export async function loadRaw(file: string): Promise<RawImage> {
  const { data, info } = await sharp(file).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/** Shifts a rectangle by up to `shift` of its size and scales it by up to ±`scale`. */
export function jitter(r: Rect, rand: () => number, shift = 0.08, scale = 0.1): Rect {
  const w = r.x1 - r.x0;
  const h = r.y1 - r.y0;
  const s = 1 + (rand() * 2 - 1) * scale;
  const cx = (r.x0 + r.x1) / 2 + (rand() * 2 - 1) * shift * w;
  const cy = (r.y0 + r.y1) / 2 + (rand() * 2 - 1) * shift * h;
  return { x0: cx - (w * s) / 2, x1: cx + (w * s) / 2, y0: cy - (h * s) / 2, y1: cy + (h * s) / 2 };
}

/** Head classes in the classifier's order (ppeModel.ts): hard hat, bare head, other headgear. */
const HEAD_LABELS: Record<HeadLabel, number> = { hat: 0, bare: 1, other: 2 };
const TORSO_LABELS = { vest: 0, none: 1 } as const;
/** Labelled heads narrower than this (pixels) are too small to learn from. */
const MIN_LABEL_HEAD = 10;
const MIN_LABEL_TORSO_H = 20;

/** One crop of a training photo to turn into a sample (before the features are computed). */
export interface PlannedCrop {
  rect: Rect;
  flip: boolean;
  label: number;
  /** `detector`: the analyzer's own detector found the person; `label`: a labelled box, mapped to the crop geometry. */
  source: 'detector' | 'label';
  /** Augmented copy (mirror / jitter): training fold only, left out of hold-out figures. */
  augmented: boolean;
}

/**
 * The head and torso crops of one photo, in sample order: the detector's matches, then the
 * labelled boxes; each original followed (training fold only) by a mirrored and a jittered copy.
 * `rand` is shared across photos, so photos must be planned in the same order to get the same
 * samples.
 */
export function planCrops(photo: TrainingPhoto, persons: readonly PersonDetection[], cal: Calibration, rand: () => number): Record<CropKind, PlannedCrop[]> {
  const pending: Record<CropKind, PlannedCrop[]> = { head: [], torso: [] };
  const add = (kind: CropKind, rect: Rect, label: number, source: PlannedCrop['source']): void => {
    pending[kind].push({ rect, flip: false, label, source, augmented: false });
    if (photo.fold !== 'train') return;
    pending[kind].push({ rect, flip: true, label, source, augmented: true });
    pending[kind].push({ rect: jitter(rect, rand), flip: rand() < 0.5, label, source, augmented: true });
  };
  for (const person of persons) {
    const g = usableHead(person);
    if (g) {
      const m = matchHead(g, photo.boxes);
      if (m) add('head', headCropRect(g.cx, g.eyeY, g.width), HEAD_LABELS[m.label as HeadLabel], 'detector');
    }
    if (photo.vestMasked) continue;
    const t = torsoRect(person, headGeometry(person));
    if (t.y1 - t.y0 < PPE_THRESHOLDS.minTorsoHeightPx) continue;
    const mt = matchTorso(t, photo.boxes);
    if (mt) add('torso', t, TORSO_LABELS[mt.label as 'vest' | 'none'], 'detector');
  }
  for (const b of photo.boxes) {
    const [x, y, w, h] = b.box;
    if (b.kind === 'head') {
      if (w < MIN_LABEL_HEAD) continue;
      // Other headgear is boxed with the hat on, like a hard hat: placed with the hard hats' relation.
      const label = b.label as HeadLabel;
      add('head', headBoxCropRect(b.box, cal.head[label === 'bare' ? 'bare' : 'hat']), HEAD_LABELS[label], 'label');
    } else if (!photo.vestMasked) {
      if (h < MIN_LABEL_TORSO_H) continue;
      const c = cal.torso;
      add('torso', { x0: x + c.x0 * w, y0: y + c.y0 * h, x1: x + c.x1 * w, y1: y + c.y1 * h }, TORSO_LABELS[b.label as 'vest' | 'none'], 'label');
    }
  }
  return pending;
}
