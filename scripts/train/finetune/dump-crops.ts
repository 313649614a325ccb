/**
 * Prototype step of backbone fine-tuning (see README.md here): writes the exact backbone input
 * crops of every training sample — the crops `npm run train` embeds, in the same order, from the
 * same plan (`planCrops`) — as uint8 pixels for the Python fine-tuning script, with one metadata
 * row per crop. Output: `tmp/ppe-train/finetune/` (git-ignored). The validation photos are never
 * read.
 */
import { mkdir, open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fluorescentFraction } from '../../../services/analysis/src/engine/ppe.js';
import { EMBED_INPUT, type CropKind } from '../../../services/analysis/src/engine/ppeEmbedding.js';
import { resampleCrop } from '../../../services/analysis/src/engine/ppeFeatures.js';
import { CACHE_DIR, listTrainingPhotos } from '../data.js';
import { detectAll, photoKey, sizeOf } from '../detect.js';
import { calibrate, loadRaw, planCrops, rng } from '../samples.js';

const SEED = 11;
const OUT = path.join(CACHE_DIR, 'finetune');

const photos = await listTrainingPhotos(sizeOf);
const detections = await detectAll(photos);
const cal = calibrate(photos, detections);
const rand = rng(SEED);
await mkdir(OUT, { recursive: true });
const files = { head: await open(path.join(OUT, 'crops-head.u8'), 'w'), torso: await open(path.join(OUT, 'crops-torso.u8'), 'w') };
const meta: Record<CropKind, Array<Record<string, unknown>>> = { head: [], torso: [] };
let done = 0;
for (const photo of photos) {
  const img = await loadRaw(photo.imagePath);
  const key = photoKey(photo);
  const planned = planCrops(photo, detections[key] ?? [], cal, rand);
  for (const kind of ['head', 'torso'] as const) {
    const { width, height } = EMBED_INPUT[kind];
    for (const c of planned[kind]) {
      const pixels = resampleCrop(img, c.rect, width, height, c.flip).data;
      const bytes = Uint8Array.from(pixels, (v) => Math.max(0, Math.min(255, Math.round(v))));
      await files[kind].write(bytes);
      meta[kind].push({ label: c.label, fold: photo.fold, augmented: c.augmented, source: c.source, photo: key, ...(kind === 'torso' ? { fluorescent: fluorescentFraction(img, c.rect) } : {}) });
    }
  }
  done++;
  if (done % 100 === 0 || done === photos.length) process.stderr.write(`\rcrops ${done}/${photos.length}: ${meta.head.length} head, ${meta.torso.length} torso`);
}
await files.head.close();
await files.torso.close();
await writeFile(path.join(OUT, 'crops-meta.json'), JSON.stringify({ sizes: EMBED_INPUT, ...meta }));
process.stderr.write(`\nwritten to ${OUT}\n`);
