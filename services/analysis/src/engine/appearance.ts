/**
 * What a worker and a frame look like, in a few numbers (issue 51): enough to follow a worker from
 * one sampled frame to the next when the camera pans, and to see a cut between two shots.
 *
 * A worker's look is the colour of their clothes: a histogram of hue (weighted by saturation) and
 * grey level over the middle of their box, in two bands — upper body and lower body — each summing
 * to 1. A frame's look is the same histogram over each quarter of the frame. Two looks are compared by the
 * Bhattacharyya coefficient (1: the same colours, 0: none in common): cheap, and unmoved by where
 * in the box the colours sit, so a worker who turns or bends still looks like themselves, while two
 * workers in different clothes do not. Workers of one crew in the same vest and hard hat look
 * alike: their position decides then (tracking.ts).
 */
import type { RawImage } from './detector.js';
import { rgbToHsv } from './ppeFeatures.js';

/** Hue bins (30° each), then grey levels for pixels with little colour. */
const HUE_BINS = 12;
const GREY_BINS = 4;
export const LOOK_BINS = HUE_BINS + GREY_BINS;
/** Below this saturation (or this brightness) a pixel counts by its grey level, not its hue. */
const MIN_SATURATION = 0.2;
const MIN_VALUE = 0.12;
/** Pixels read per side at most (the histogram needs no more). */
const STEP_TARGET = 48;

/** One histogram of {@link LOOK_BINS} bins over a rectangle of the image, summing to 1 (all zeros when it holds no pixel). */
export function colourHistogram(img: RawImage, x0: number, y0: number, x1: number, y1: number): number[] {
  const bins = new Array<number>(LOOK_BINS).fill(0);
  const left = Math.max(0, Math.floor(x0));
  const top = Math.max(0, Math.floor(y0));
  const right = Math.min(img.width, Math.ceil(x1));
  const bottom = Math.min(img.height, Math.ceil(y1));
  if (right <= left || bottom <= top) return bins;
  const sx = Math.max(1, Math.floor((right - left) / STEP_TARGET));
  const sy = Math.max(1, Math.floor((bottom - top) / STEP_TARGET));
  let total = 0;
  for (let y = top; y < bottom; y += sy) {
    for (let x = left; x < right; x += sx) {
      const i = (y * img.width + x) * 3;
      const { h, s, v } = rgbToHsv(img.data[i]!, img.data[i + 1]!, img.data[i + 2]!);
      if (s < MIN_SATURATION || v < MIN_VALUE) {
        bins[HUE_BINS + Math.min(GREY_BINS - 1, Math.floor(v * GREY_BINS))]! += 1;
        total += 1;
        continue;
      }
      // Weighted by saturation: a vivid colour says more about the garment than a dull one.
      bins[Math.min(HUE_BINS - 1, Math.floor(h / (360 / HUE_BINS)))]! += s;
      total += s;
    }
  }
  return total > 0 ? bins.map((b) => Math.round((b / total) * 1000) / 1000) : bins;
}

/**
 * A worker's look: the colour histograms of the middle 60 % of their box across, from 15 % to 55 %
 * of its height (upper body) and from 55 % to 95 % (lower body), one after the other
 * (2 × {@link LOOK_BINS} numbers). `box` is `[x, y, w, h]` in pixels of `img`.
 */
export function workerLook(img: RawImage, box: readonly [number, number, number, number]): number[] {
  const [x, y, w, h] = box;
  const x0 = x + 0.2 * w;
  const x1 = x + 0.8 * w;
  return [...colourHistogram(img, x0, y + 0.15 * h, x1, y + 0.55 * h), ...colourHistogram(img, x0, y + 0.55 * h, x1, y + 0.95 * h)];
}

/**
 * A frame's look: the colour histograms of its four quarters, one after the other (4 ×
 * {@link LOOK_BINS} numbers) — where the colours are, so that two shots of one kind of scene (two
 * photos of one data set: 0.91 alike as whole frames) still differ (0.85), while a pan keeps a
 * frame like the one before it (0.915–1 on the four real clips, 0.7 s apart).
 */
export function frameLook(img: RawImage): number[] {
  const w = img.width / 2;
  const h = img.height / 2;
  return [
    ...colourHistogram(img, 0, 0, w, h),
    ...colourHistogram(img, w, 0, img.width, h),
    ...colourHistogram(img, 0, h, w, img.height),
    ...colourHistogram(img, w, h, img.width, img.height),
  ];
}

/**
 * How alike two looks are, 0..1: the Bhattacharyya coefficient of each band's histograms, averaged
 * over the bands both have (a band with no pixels is left out); null when either look is missing or
 * they share no band.
 */
export function lookSimilarity(a: readonly number[] | undefined, b: readonly number[] | undefined): number | null {
  if (!a || !b || a.length !== b.length || a.length % LOOK_BINS !== 0) return null;
  let sum = 0;
  let bands = 0;
  for (let o = 0; o < a.length; o += LOOK_BINS) {
    let bc = 0;
    let ma = 0;
    let mb = 0;
    for (let i = o; i < o + LOOK_BINS; i++) {
      bc += Math.sqrt(a[i]! * b[i]!);
      ma += a[i]!;
      mb += b[i]!;
    }
    if (ma === 0 || mb === 0) continue;
    sum += bc / Math.sqrt(ma * mb);
    bands += 1;
  }
  return bands > 0 ? Math.min(1, sum / bands) : null;
}
