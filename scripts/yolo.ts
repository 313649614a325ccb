/**
 * YOLO label files: one object a line, `class cx cy w h` (a box) or `class x1 y1 x2 y2 …` (a
 * polygon, segmentation export), all coordinates normalised to 0..1. Polygons become their
 * bounding box.
 */

/** One labelled object: class id and `[x, y, w, h]` normalised to the image size. */
export interface YoloObject {
  cls: number;
  box: [number, number, number, number];
}

/** Parses a label file; blank and malformed lines are skipped. */
export function parseYoloLabels(text: string): YoloObject[] {
  const out: YoloObject[] = [];
  for (const line of text.split(/\r?\n/)) {
    const parts = line.trim().split(/\s+/).filter(Boolean);
    if (parts.length < 5) continue;
    const nums = parts.map(Number);
    const cls = nums[0]!;
    if (!Number.isInteger(cls) || cls < 0 || nums.some((n) => !Number.isFinite(n))) continue;
    const coords = nums.slice(1);
    if (coords.length === 4) {
      const [cx, cy, w, h] = coords as [number, number, number, number];
      if (w <= 0 || h <= 0) continue;
      out.push({ cls, box: [cx - w / 2, cy - h / 2, w, h] });
    } else if (coords.length >= 6 && coords.length % 2 === 0) {
      const xs = coords.filter((_, i) => i % 2 === 0);
      const ys = coords.filter((_, i) => i % 2 === 1);
      const x0 = Math.min(...xs);
      const y0 = Math.min(...ys);
      const w = Math.max(...xs) - x0;
      const h = Math.max(...ys) - y0;
      if (w <= 0 || h <= 0) continue;
      out.push({ cls, box: [x0, y0, w, h] });
    }
  }
  return out;
}

/** The set of class ids present in a label file. */
export function classesIn(text: string): Set<number> {
  return new Set(parseYoloLabels(text).map((o) => o.cls));
}
