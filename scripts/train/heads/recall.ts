/**
 * `npx tsx scripts/train/heads/recall.ts --images DIR --labels DIR [--classes 0,1,2]`: the head
 * detector alone (the one beside `BARET_PPE_MODEL`'s model file, else the committed one) on a folder
 * of YOLO-labelled photos — for each labelled head, the best heatmap peak on it (a peak whose
 * centre lies in the labelled box, or whose box overlaps it by IoU ≥ 0.3; peaks from 0.1 down to
 * the detector's own `minScore`), and how many are found at the detector's threshold. A diagnosis
 * of "not found" heads (issue 38): found by no model, or found and lost later. Prints one JSON line.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { decodeHeads, detectorInput, headDetectorMaps, loadHeadDetector } from '../../../services/analysis/src/engine/headDetector.js';
import { parseYoloLabels } from '../../yolo.js';
import { loadRaw } from '../samples.js';

const { values } = parseArgs({ options: { images: { type: 'string' }, labels: { type: 'string' }, classes: { type: 'string', default: '0,1,2' } } });
const classes = values.classes!.split(',').map(Number);
const det = await loadHeadDetector();
type Box = [number, number, number, number];
const iou = (a: Box, b: Box): number => {
  const w = Math.max(0, Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]));
  const h = Math.max(0, Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]));
  return (w * h) / (a[2] * a[3] + b[2] * b[3] - w * h);
};
const files = (await readdir(values.images!)).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort();
const perClass: Record<number, { labelled: number; found: number; best: number[] }> = {};
const missed: Array<{ file: string; cls: number; box: Box; best: number }> = [];
for (const file of files) {
  const img = await loadRaw(path.join(values.images!, file));
  const text = await readFile(path.join(values.labels!, file.replace(/\.[^.]+$/, '.txt')), 'utf8').catch(() => '');
  const input = detectorInput(det, img);
  const maps = await headDetectorMaps(det, input.data, 1, input.width, input.height);
  const peaks = decodeHeads(maps, 0.1, img.width / input.width, img.height / input.height);
  for (const o of parseYoloLabels(text)) {
    if (!classes.includes(o.cls)) continue;
    const box: Box = [o.box[0] * img.width, o.box[1] * img.height, o.box[2] * img.width, o.box[3] * img.height];
    const on = peaks.filter((p) => {
      const cx = p.box[0] + p.box[2] / 2;
      const cy = p.box[1] + p.box[3] / 2;
      return (cx >= box[0] && cx <= box[0] + box[2] && cy >= box[1] && cy <= box[1] + box[3]) || iou(p.box, box) >= 0.3;
    });
    const best = Math.max(0, ...on.map((p) => p.score));
    const c = (perClass[o.cls] ??= { labelled: 0, found: 0, best: [] });
    c.labelled++;
    c.best.push(Number(best.toFixed(3)));
    if (best >= det.model.minScore) c.found++;
    else missed.push({ file, cls: o.cls, box: box.map(Math.round) as Box, best: Number(best.toFixed(3)) });
  }
}
const summary = Object.fromEntries(
  Object.entries(perClass).map(([k, c]) => [k, { labelled: c.labelled, found: c.found, under: Object.fromEntries([0.1, 0.2, 0.3, 0.4].map((t) => [t, c.best.filter((b) => b >= t && b < det.model.minScore).length])) }]),
);
process.stderr.write(missed.map((m) => `missed: class ${m.cls} best ${m.best} ${m.box.join(',')} ${m.file}`).join('\n') + '\n');
console.log(JSON.stringify({ minScore: det.model.minScore, summary }));
