/**
 * `npx tsx scripts/train/heads/headwearBoxes.ts [subset]` (issue 38, ADR 0031 addendum): where the
 * person detector's keypoint head lies against a subset's labelled head boxes, per label — the
 * medians behind `HEADWEAR_BOX` in heads.ts (by default on hard-hat-or-headwear, whose boxes are
 * drawn around the headwear). Persons whose head is placed from the face keypoints, each taken by the
 * nearest labelled head box whose centre lies within one head width of the keypoint head's eye point.
 */
import { CV_SUBSET, listTrainingPhotos } from '../data.js';
import { detectAll, photoKey, sizeOf } from '../detect.js';
import { median } from '../samples.js';
import { headGeometry } from '../../../services/analysis/src/engine/ppe.js';

const subset = process.argv[2] ?? CV_SUBSET;
const photos = (await listTrainingPhotos(sizeOf)).filter((p) => p.subset === subset);
const detections = await detectAll(photos);
const acc: Record<string, { dx: number[]; eye: number[]; width: number[]; aspect: number[] }> = {};
for (const photo of photos) {
  for (const person of detections[photoKey(photo)] ?? []) {
    const g = headGeometry(person);
    if (g.from !== 'face') continue;
    let best: (typeof photo.boxes)[number] | null = null;
    let bestDistance = Infinity;
    for (const b of photo.boxes) {
      if (b.kind !== 'head') continue;
      const [x, y, w, h] = b.box;
      const d = Math.hypot(x + w / 2 - g.cx, y + h / 2 - g.eyeY);
      if (d < g.width && d < bestDistance) {
        bestDistance = d;
        best = b;
      }
    }
    if (!best) continue;
    const [x, y, w, h] = best.box;
    const a = (acc[best.label] ??= { dx: [], eye: [], width: [], aspect: [] });
    a.dx.push((g.cx - (x + w / 2)) / w);
    a.eye.push((g.eyeY - y) / h);
    a.width.push(g.width / w);
    a.aspect.push(h / w);
  }
}
for (const [label, a] of Object.entries(acc)) {
  console.log(`${subset} ${label}: ${a.dx.length} heads, dx ${median(a.dx).toFixed(3)}, eye ${median(a.eye).toFixed(3)} box heights, width ${median(a.width).toFixed(3)} box widths, box height/width ${median(a.aspect).toFixed(3)}`);
}
