/**
 * Retroreflective tape on a torso (issue 51): long, narrow bands paler than the saturated garment
 * they are sewn on. A garment with such bands is a safety garment — a vest of a colour the torso
 * classifier was not trained on (royal blue), or workwear with reflective stripes — so the torso is
 * no evidence of a missing vest, though neither is it proof of a hi-vis one (EN ISO 20471 asks for
 * fluorescent cloth as well as tape).
 */
import type { RawImage } from './detector.js';
import { clipRect, rgbToHsv, type Rect } from './ppeFeatures.js';

/**
 * The rule's constants. The garment: pixels at least `garmentSat` saturated and `garmentVal`
 * bright, at least `garmentShare` of the torso. Tape: pixels `satDrop` less saturated than the
 * garment's median and no more than `valDrop` darker than its median value (tape by daylight, not
 * lit by a lamp, is about as bright as the cloth). A band: a connected patch of tape at least
 * `minWidthPx` wide (the median of its pixels' runs across it) and at most `maxWidth` of the torso's
 * shorter side (tape is a few centimetres wide: not a shirt between the sides of an open jacket),
 * whose length (its area over its width: bands that cross, as on a vest's back, add up) is at least
 * `elongation` times its width and at least `minLength` of the torso's shorter side (itself at least
 * `minSidePx`), with garment `besidePx` beyond both ends of the run across for at least `sewn` of
 * its pixels.
 */
export const TAPE = {
  garmentSat: 0.55,
  garmentVal: 0.25,
  garmentShare: 0.35,
  satDrop: 0.3,
  valDrop: 0.1,
  elongation: 3.5,
  minLength: 0.6,
  minWidthPx: 2,
  maxWidth: 0.25,
  besidePx: 3,
  sewn: 0.6,
  minSidePx: 24,
} as const;

/** A torso's pixels, row by row from its top left: which are garment, which are tape. */
interface TorsoMasks {
  w: number;
  h: number;
  garment: Uint8Array;
  tape: Uint8Array;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The garment and tape masks of the torso `r` of `img` brightened by `gain`; null when too small or the garment too little saturated to tell tape from it. */
function masks(img: RawImage, r: Rect, gain: number): TorsoMasks | null {
  const rect = clipRect(r, img);
  if (!rect) return null;
  const { x0, y0 } = rect;
  const w = rect.x1 - x0;
  const h = rect.y1 - y0;
  if (Math.min(w, h) < TAPE.minSidePx) return null;
  const sat = new Float32Array(w * h);
  const val = new Float32Array(w * h);
  const garment = new Uint8Array(w * h);
  const garmentS: number[] = [];
  const garmentV: number[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = ((y0 + y) * img.width + x0 + x) * 3;
      const c = (k: number): number => Math.min(255, img.data[i + k]! * gain);
      const { s, v } = rgbToHsv(c(0), c(1), c(2));
      sat[y * w + x] = s;
      val[y * w + x] = v;
      if (s >= TAPE.garmentSat && v >= TAPE.garmentVal) {
        garment[y * w + x] = 1;
        garmentS.push(s);
        garmentV.push(v);
      }
    }
  }
  if (garmentS.length < TAPE.garmentShare * w * h) return null;
  const maxS = median(garmentS) - TAPE.satDrop;
  const minV = median(garmentV) - TAPE.valDrop;
  const tape = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) tape[i] = sat[i]! <= maxS && val[i]! >= minV ? 1 : 0;
  return { w, h, garment, tape };
}

/** The connected patches (4-neighbours) of `mask`'s set pixels; the mask is used up. */
function* patches(mask: Uint8Array, w: number, h: number): Generator<{ xs: number[]; ys: number[] }> {
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (mask[start] !== 1) continue;
    mask[start] = 2;
    stack.push(start);
    const xs: number[] = [];
    const ys: number[] = [];
    while (stack.length > 0) {
      const i = stack.pop()!;
      const x = i % w;
      const y = (i - x) / w;
      xs.push(x);
      ys.push(y);
      for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, y > 0 ? i - w : -1, y < h - 1 ? i + w : -1]) {
        if (j >= 0 && mask[j] === 1) {
          mask[j] = 2;
          stack.push(j);
        }
      }
    }
    yield { xs, ys };
  }
}

/** A run of tape along a row or a column, for each pixel of it: its first and last position. */
interface Runs {
  from: Int32Array;
  to: Int32Array;
}

/**
 * Each pixel's run of tape along its row and along its column. A pixel's shorter run crosses its
 * band; at a crossing of two bands both runs are long.
 */
function runs(m: TorsoMasks): { row: Runs; col: Runs } {
  const { w, h } = m;
  return { row: runsAlong(m.tape, h, w, (line, k) => line * w + k), col: runsAlong(m.tape, w, h, (line, k) => k * w + line) };
}

/** For `lines` lines of `length` pixels (`at`: a pixel's index), each set pixel's run along its line: first and last position. */
function runsAlong(mask: Uint8Array, lines: number, length: number, at: (line: number, k: number) => number): Runs {
  const from = new Int32Array(mask.length);
  const to = new Int32Array(mask.length);
  for (let line = 0; line < lines; line++) {
    for (let k = 0; k < length; ) {
      if (mask[at(line, k)] === 0) {
        k++;
        continue;
      }
      let end = k;
      while (end + 1 < length && mask[at(line, end + 1)] !== 0) end++;
      for (let j = k; j <= end; j++) {
        from[at(line, j)] = k;
        to[at(line, j)] = end;
      }
      k = end + 1;
    }
  }
  return { from, to };
}

/**
 * A patch of tape as a band: its width (the median run across it, each pixel's shorter run), its
 * length (its area over that width), and the share of its pixels with garment `besidePx` beyond
 * both ends of the run across — sewn on the cloth, not the torso's edge against the background, an
 * arm, or a caption over the picture.
 */
function band(xs: number[], ys: number[], m: TorsoMasks, r: ReturnType<typeof runs>): { width: number; length: number; sewn: number } {
  const isGarment = (x: number, y: number): boolean => x >= 0 && y >= 0 && x < m.w && y < m.h && m.garment[y * m.w + x] === 1;
  const across: number[] = [];
  let sewn = 0;
  for (let n = 0; n < xs.length; n++) {
    const x = xs[n]!;
    const y = ys[n]!;
    const i = y * m.w + x;
    const row = r.row.to[i]! - r.row.from[i]! + 1;
    const col = r.col.to[i]! - r.col.from[i]! + 1;
    across.push(Math.min(row, col));
    const beside =
      row <= col
        ? isGarment(r.row.from[i]! - TAPE.besidePx, y) && isGarment(r.row.to[i]! + TAPE.besidePx, y)
        : isGarment(x, r.col.from[i]! - TAPE.besidePx) && isGarment(x, r.col.to[i]! + TAPE.besidePx);
    if (beside) sewn++;
  }
  const width = median(across);
  return { width, length: xs.length / width, sewn: sewn / xs.length };
}

/**
 * The longest tape band on the torso `r` of `img` (brightened by `gain`) as a share of the torso's
 * shorter side; 0 when the garment is not saturated enough to tell tape from it, or no band is long,
 * narrow and sewn on ({@link TAPE}).
 */
export function tapeBand(img: RawImage, r: Rect, gain = 1): number {
  const m = masks(img, r, gain);
  if (!m) return 0;
  const side = Math.min(m.w, m.h);
  const across = runs(m);
  let best = 0;
  for (const { xs, ys } of patches(m.tape.slice(), m.w, m.h)) {
    if (xs.length < 8) continue;
    const b = band(xs, ys, m, across);
    const long = b.width >= TAPE.minWidthPx && b.width <= TAPE.maxWidth * side && b.length >= TAPE.elongation * b.width && b.length >= TAPE.minLength * side;
    if (long && b.sewn >= TAPE.sewn) best = Math.max(best, b.length / side);
  }
  return best;
}
