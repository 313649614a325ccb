/**
 * `npx tsx scripts/train/faceHeads.ts [--per-subset N] [--min-score S]`: fits where a head box lies around the
 * face BlazeFace finds (issue 26, the face head source of `ppe.ts`, `FACE_HEAD`). On the training
 * subsets other than the cross-validated one ({@link CV_SUBSET} is left out: it measures the
 * source), each face whose centre lies in one labelled head box (hard hat, other headgear, bare)
 * gives that box's offsets in face widths / heights; the medians are printed as JSON, with the
 * quartiles. Never the validation photos. `FACE_HEAD` holds the medians of the defaults (the first
 * 120 photos of each subset by name, faces at score ≥ 0.5: 458 faces, 358 in one labelled head).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { decodeImage, detectFacesRaw } from '../../services/analysis/src/engine/detector.js';
import { parseYoloLabels } from '../yolo.js';
import { CV_SUBSET, SUBSETS, TRAINING_DIR } from './data.js';

const { values } = parseArgs({ options: { 'per-subset': { type: 'string' }, 'min-score': { type: 'string' } } });
const perSubset = Number(values['per-subset'] ?? 120);
const minScore = Number(values['min-score'] ?? 0.5);
const rows: Array<{ left: number; right: number; top: number; bottom: number }> = [];
let faces = 0;
for (const [subset, cls] of Object.entries(SUBSETS)) {
  if (subset === CV_SUBSET) continue;
  const dir = path.join(TRAINING_DIR, subset);
  const files = (await readdir(path.join(dir, 'images'))).sort().slice(0, perSubset);
  for (const file of files) {
    const labels = await readFile(path.join(dir, 'labels', file.replace(/\.[^.]+$/, '.txt')), 'utf8').catch(() => '');
    const decoded = await decodeImage(await readFile(path.join(dir, 'images', file)));
    const { width, height } = decoded.work;
    const heads = parseYoloLabels(labels)
      .filter((o) => o.cls === cls.helmet || o.cls === cls.bare || o.cls === cls.other)
      .map((o) => [o.box[0] * width, o.box[1] * height, o.box[2] * width, o.box[3] * height] as const);
    for (const f of await detectFacesRaw(decoded.work, { minScore })) {
      faces++;
      const [fx, fy, fw, fh] = f.box;
      const cx = fx + fw / 2;
      const cy = fy + fh / 2;
      const inside = heads.filter(([x, y, w, h]) => cx >= x && cx <= x + w && cy >= y && cy <= y + h);
      if (inside.length !== 1) continue;
      const [x, y, w, h] = inside[0]!;
      rows.push({ left: (fx - x) / fw, right: (x + w - (fx + fw)) / fw, top: (fy - y) / fh, bottom: (y + h - (fy + fh)) / fh });
    }
  }
}
const q = (k: keyof (typeof rows)[number], p: number): number => {
  const v = rows.map((r) => r[k]).sort((a, b) => a - b);
  return Math.round(v[Math.floor(p * (v.length - 1))]! * 1000) / 1000;
};
const keys = ['left', 'right', 'top', 'bottom'] as const;
process.stderr.write(`${faces} faces found, ${rows.length} in exactly one labelled head\n`);
console.log(JSON.stringify({ faces, matched: rows.length, median: Object.fromEntries(keys.map((k) => [k, q(k, 0.5)])), q1: Object.fromEntries(keys.map((k) => [k, q(k, 0.25)])), q3: Object.fromEntries(keys.map((k) => [k, q(k, 0.75)])) }));
