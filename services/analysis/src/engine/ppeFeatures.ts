/**
 * What the learned PPE classifier sees: a head crop and a torso crop cut from an RGB image at the
 * places the keypoints give, resampled to a fixed size, and turned into a feature vector (colour
 * layout in CIE L*a*b*, colour-category fractions and a histogram of oriented gradients).
 *
 * The training script (`scripts/train/`) and the run time (`ppeModel.ts`) share this file, so the
 * model is trained on exactly the features it is asked about.
 */
import type { RawImage } from './detector.js';

/** An axis-aligned rectangle in pixels (x1, y1 exclusive). */
export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A resampled crop: RGB, 0..255 floats, row-major. */
export interface Crop {
  data: Float32Array;
  width: number;
  height: number;
}

/** Crop sizes the features are computed on. */
export const HEAD_CROP = { width: 32, height: 32 } as const;
export const TORSO_CROP = { width: 24, height: 32 } as const;

/** Head crop around the head geometry (head centre x, eye line y, head width), in head widths. */
export const HEAD_BOX = { above: 1.35, below: 0.75, halfWidth: 1.0 } as const;

/** The head crop rectangle for a head at (`cx`, `eyeY`) of width `width`. */
export function headCropRect(cx: number, eyeY: number, width: number): Rect {
  return { x0: cx - HEAD_BOX.halfWidth * width, x1: cx + HEAD_BOX.halfWidth * width, y0: eyeY - HEAD_BOX.above * width, y1: eyeY + HEAD_BOX.below * width };
}

function pixelAt(img: RawImage, x: number, y: number, c: number): number {
  const xi = Math.min(img.width - 1, Math.max(0, x));
  const yi = Math.min(img.height - 1, Math.max(0, y));
  return img.data[(yi * img.width + xi) * 3 + c]!;
}

/**
 * Resamples `rect` of `img` to `width`×`height` with an area filter (up to 4×4 bilinear taps per
 * output pixel); outside the image the border pixels repeat. `flip` mirrors it left to right.
 */
export function resampleCrop(img: RawImage, rect: Rect, width: number, height: number, flip = false): Crop {
  const out = new Float32Array(width * height * 3);
  const sx = (rect.x1 - rect.x0) / width;
  const sy = (rect.y1 - rect.y0) / height;
  const tx = Math.min(4, Math.max(1, Math.ceil(sx)));
  const ty = Math.min(4, Math.max(1, Math.ceil(sy)));
  const taps = tx * ty;
  for (let j = 0; j < height; j++) {
    for (let i = 0; i < width; i++) {
      const oi = flip ? width - 1 - i : i;
      let r = 0;
      let g = 0;
      let b = 0;
      for (let v = 0; v < ty; v++) {
        const y = rect.y0 + (j + (v + 0.5) / ty) * sy - 0.5;
        const y0 = Math.floor(y);
        const fy = y - y0;
        for (let u = 0; u < tx; u++) {
          const x = rect.x0 + (i + (u + 0.5) / tx) * sx - 0.5;
          const x0 = Math.floor(x);
          const fx = x - x0;
          for (let c = 0; c < 3; c++) {
            const top = pixelAt(img, x0, y0, c) * (1 - fx) + pixelAt(img, x0 + 1, y0, c) * fx;
            const bottom = pixelAt(img, x0, y0 + 1, c) * (1 - fx) + pixelAt(img, x0 + 1, y0 + 1, c) * fx;
            const val = top * (1 - fy) + bottom * fy;
            if (c === 0) r += val;
            else if (c === 1) g += val;
            else b += val;
          }
        }
      }
      const o = (j * width + oi) * 3;
      out[o] = r / taps;
      out[o + 1] = g / taps;
      out[o + 2] = b / taps;
    }
  }
  return { data: out, width, height };
}

function srgbToLinear(c: number): number {
  const x = c / 255;
  return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
}

function labF(t: number): number {
  return t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116;
}

/** sRGB (0..255) to CIE L*a*b* (D65). */
export function rgbToLab(r: number, g: number, b: number): [number, number, number] {
  const R = srgbToLinear(r);
  const G = srgbToLinear(g);
  const B = srgbToLinear(b);
  const x = (0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047;
  const y = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  const z = (0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883;
  const fx = labF(x);
  const fy = labF(y);
  const fz = labF(z);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** RGB (0..255) to HSV with hue in degrees (0..360) and s, v in 0..1. */
export function rgbToHsv(r: number, g: number, b: number): { h: number; s: number; v: number } {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  let h = 0;
  if (d > 0) {
    if (max === r) h = 60 * (((g - b) / d) % 6);
    else if (max === g) h = 60 * ((b - r) / d + 2);
    else h = 60 * ((r - g) / d + 4);
  }
  if (h < 0) h += 360;
  return { h, s: max === 0 ? 0 : d / max, v: max / 255 };
}

/** Colour categories counted per band (fractions of the band's pixels). */
const CATEGORIES = 10;
function category(r: number, g: number, b: number): number {
  const { h, s, v } = rgbToHsv(r, g, b);
  if (v < 0.22) return 0; // dark (hair, shadow, black hats)
  if (s < 0.18) return v > 0.7 ? 1 : 2; // white / grey
  if (h >= 52 && h <= 100 && v >= 0.55 && s >= 0.25) return 3; // fluorescent yellow-green
  if (h >= 6 && h <= 36 && s >= 0.7 && v >= 0.65) return 4; // fluorescent orange
  if ((h <= 45 || h >= 340) && s <= 0.62 && v >= 0.3) return 5; // skin tones, brown
  if (h < 52 || h >= 340) return 6; // red, orange, yellow
  if (h < 170) return 7; // green
  if (h < 260) return 8; // blue
  return 9; // purple, pink
}

/**
 * Features of a crop: per cell of a `rows`×`cols` grid the mean L*, a*, b* and the spread of L*;
 * per horizontal band (`bands` of them) the fraction of each colour category; a `thumb`×`thumb`
 * thumbnail of L*, a*, b*; and a 4×4-cell,
 * 9-bin histogram of oriented gradients of the lightness, each cell normalised.
 */
export function cropFeatures(crop: Crop, grid: { rows: number; cols: number; bands: number; thumb: number }): Float32Array {
  const { width, height, data } = crop;
  const n = width * height;
  const L = new Float32Array(n);
  const A = new Float32Array(n);
  const B = new Float32Array(n);
  const cat = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    const r = data[p * 3]!;
    const g = data[p * 3 + 1]!;
    const b = data[p * 3 + 2]!;
    const lab = rgbToLab(r, g, b);
    L[p] = lab[0];
    A[p] = lab[1];
    B[p] = lab[2];
    cat[p] = category(r, g, b);
  }
  const out: number[] = [];
  for (let gy = 0; gy < grid.rows; gy++) {
    for (let gx = 0; gx < grid.cols; gx++) {
      const y0 = Math.floor((gy * height) / grid.rows);
      const y1 = Math.floor(((gy + 1) * height) / grid.rows);
      const x0 = Math.floor((gx * width) / grid.cols);
      const x1 = Math.floor(((gx + 1) * width) / grid.cols);
      let sl = 0;
      let sa = 0;
      let sb = 0;
      let sll = 0;
      let k = 0;
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const p = y * width + x;
          sl += L[p]!;
          sa += A[p]!;
          sb += B[p]!;
          sll += L[p]! * L[p]!;
          k++;
        }
      }
      const ml = sl / k;
      out.push(ml / 100, sa / k / 100, sb / k / 100, Math.sqrt(Math.max(0, sll / k - ml * ml)) / 50);
    }
  }
  for (let band = 0; band < grid.bands; band++) {
    const y0 = Math.floor((band * height) / grid.bands);
    const y1 = Math.floor(((band + 1) * height) / grid.bands);
    const counts = new Array<number>(CATEGORIES).fill(0);
    for (let y = y0; y < y1; y++) for (let x = 0; x < width; x++) counts[cat[y * width + x]!]!++;
    const total = (y1 - y0) * width;
    for (const c of counts) out.push(c / total);
  }
  // A thumbnail of the lightness and colour (thumb × thumb cells of L*, a*, b*).
  const t = grid.thumb;
  for (let ty = 0; ty < t; ty++) {
    for (let tx = 0; tx < t; tx++) {
      let sl = 0;
      let sa = 0;
      let sb = 0;
      let k = 0;
      for (let y = Math.floor((ty * height) / t); y < Math.floor(((ty + 1) * height) / t); y++) {
        for (let x = Math.floor((tx * width) / t); x < Math.floor(((tx + 1) * width) / t); x++) {
          const p = y * width + x;
          sl += L[p]!;
          sa += A[p]!;
          sb += B[p]!;
          k++;
        }
      }
      out.push(sl / k / 100, sa / k / 100, sb / k / 100);
    }
  }
  // Histogram of oriented gradients (unsigned, 9 bins) on L*, 4×4 cells.
  const bins = 9;
  const cellsX = 4;
  const cellsY = 4;
  const hog = new Float32Array(cellsX * cellsY * bins);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const gx = L[y * width + x + 1]! - L[y * width + x - 1]!;
      const gy = L[(y + 1) * width + x]! - L[(y - 1) * width + x]!;
      const mag = Math.hypot(gx, gy);
      if (mag === 0) continue;
      let ang = Math.atan2(gy, gx);
      if (ang < 0) ang += Math.PI;
      const bin = Math.min(bins - 1, Math.floor((ang / Math.PI) * bins));
      const cx = Math.min(cellsX - 1, Math.floor((x * cellsX) / width));
      const cy = Math.min(cellsY - 1, Math.floor((y * cellsY) / height));
      hog[(cy * cellsX + cx) * bins + bin]! += mag;
    }
  }
  for (let c = 0; c < cellsX * cellsY; c++) {
    let s = 0;
    for (let k = 0; k < bins; k++) s += hog[c * bins + k]! ** 2;
    const norm = Math.sqrt(s) + 1e-3 * 100;
    for (let k = 0; k < bins; k++) out.push(hog[c * bins + k]! / norm);
  }
  return Float32Array.from(out);
}

/** The head's features: a 4×3 colour grid, 4 colour bands (crown to chin), an 8×8 thumbnail, gradients. */
export function headFeatures(img: RawImage, rect: Rect, flip = false): Float32Array {
  return cropFeatures(resampleCrop(img, rect, HEAD_CROP.width, HEAD_CROP.height, flip), { rows: 4, cols: 3, bands: 4, thumb: 8 });
}

/** The torso's features: a 3×2 colour grid, 3 colour bands, gradients. */
export function torsoFeatures(img: RawImage, rect: Rect, flip = false): Float32Array {
  return cropFeatures(resampleCrop(img, rect, TORSO_CROP.width, TORSO_CROP.height, flip), { rows: 3, cols: 2, bands: 3, thumb: 0 });
}

/** The classifier's input: the hand-made features followed by the backbone's embedding (ppeEmbedding.ts). */
export function joinFeatures(handMade: Float32Array, embedding: Float32Array): Float32Array {
  const out = new Float32Array(handMade.length + embedding.length);
  out.set(handMade, 0);
  out.set(embedding, handMade.length);
  return out;
}
