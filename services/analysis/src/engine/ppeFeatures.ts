/**
 * What the learned PPE classifier sees: a head crop and a torso crop cut from an RGB image at the
 * places the keypoints give, resampled to the backbone's input size (ppeEmbedding.ts); and the
 * colour conversions the colour statistics of ppe.ts use.
 *
 * The training script (`scripts/train/`) and the run time share this file, so the model is
 * trained on exactly the crops it is asked about.
 */
import type { RawImage } from './detector.js';

/** An axis-aligned rectangle in pixels (x1, y1 exclusive). */
export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** `r` on whole pixels inside `img`; null when less than 2 pixels wide or high are left. */
export function clipRect(r: Rect, img: Pick<RawImage, 'width' | 'height'>): Rect | null {
  const x0 = Math.max(0, Math.floor(r.x0));
  const y0 = Math.max(0, Math.floor(r.y0));
  const x1 = Math.min(img.width, Math.ceil(r.x1));
  const y1 = Math.min(img.height, Math.ceil(r.y1));
  return x1 - x0 >= 2 && y1 - y0 >= 2 ? { x0, y0, x1, y1 } : null;
}

/** A resampled crop: RGB, 0..255 floats, row-major. */
export interface Crop {
  data: Float32Array;
  width: number;
  height: number;
}

/** Head crop around the head geometry (head centre x, eye line y, head width), in head widths. */
export const HEAD_BOX = { above: 1.35, below: 0.75, halfWidth: 1.0 } as const;

/** The head crop rectangle for a head at (`cx`, `eyeY`) of width `width`. */
export function headCropRect(cx: number, eyeY: number, width: number): Rect {
  return { x0: cx - HEAD_BOX.halfWidth * width, x1: cx + HEAD_BOX.halfWidth * width, y0: eyeY - HEAD_BOX.above * width, y1: eyeY + HEAD_BOX.below * width };
}

/** How a head box (labelled, or found by the head detector) maps to the head geometry its crop is cut around. */
export interface HeadBoxGeometry {
  /** Head centre x − box centre x, in box widths. */
  dx: number;
  /** Eye line − box top, in box heights. */
  eye: number;
  /** Head width, in box widths. */
  width: number;
}

/** Where a head box `[x, y, w, h]` puts the head: its centre line, eye line and width. */
export function headBoxPlace([x, y, w, h]: readonly [number, number, number, number], g: HeadBoxGeometry): { cx: number; eyeY: number; width: number } {
  return { cx: x + w / 2 + g.dx * w, eyeY: y + g.eye * h, width: g.width * w };
}

/** The head crop for a head box `[x, y, w, h]`: a labelled box in training, a detected one at run time. */
export function headBoxCropRect(box: readonly [number, number, number, number], g: HeadBoxGeometry): Rect {
  const { cx, eyeY, width } = headBoxPlace(box, g);
  return headCropRect(cx, eyeY, width);
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
