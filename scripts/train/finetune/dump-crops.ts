/**
 * Step 3 of `npm run train` (train.ts): writes the exact backbone input crops of every training
 * sample — from the crop plan of `planCrops` (../samples.ts), with its seed — as uint8 pixels for
 * the Python fine-tuning step (finetune.py), with one metadata row per crop (label, fold, photo,
 * augmented or not; torsos also their fluorescent fraction, the run-time hi-vis gate's input).
 * Output: `crops-head.u8`, `crops-torso.u8` and `crops-meta.json` in the given folder (under
 * tmp/ppe-train, git-ignored). The validation photos are never read.
 */
import { mkdir, open, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fluorescentFraction } from '../../../services/analysis/src/engine/ppe.js';
import { EMBED_INPUT, type CropKind } from '../../../services/analysis/src/engine/ppeEmbedding.js';
import { resampleCrop } from '../../../services/analysis/src/engine/ppeFeatures.js';
import type { TrainingPhoto } from '../data.js';
import { photoKey, type Detections } from '../detect.js';
import { loadRaw, planCrops, rng, type Calibration } from '../samples.js';

/** Bump when the crops change (plan, sizes, resampling): a cached dump of another version is rebuilt. */
const CROPS_VERSION = 1;

export interface CropRow {
  label: number;
  fold: TrainingPhoto['fold'];
  augmented: boolean;
  source: 'detector' | 'label';
  photo: string;
  /** Torso crops: fraction of fluorescent pixels in the crop rectangle. */
  fluorescent?: number;
}

export interface CropsMeta extends Record<CropKind, CropRow[]> {
  version: number;
  photos: number;
  seed: number;
  sizes: typeof EMBED_INPUT;
}

/** Bytes of one crop of `kind` in `crops-<kind>.u8` (RGB, uint8). */
export const bytesPerCrop = (kind: CropKind): number => EMBED_INPUT[kind].width * EMBED_INPUT[kind].height * 3;

/** The dump in `dir` when one of this version, photo count, seed and crop sizes is complete there. */
async function cachedDump(dir: string, photos: number, seed: number): Promise<CropsMeta | null> {
  const meta = await readFile(path.join(dir, 'crops-meta.json'), 'utf8').then((s) => JSON.parse(s) as CropsMeta, () => null);
  if (!meta || meta.version !== CROPS_VERSION || meta.photos !== photos || meta.seed !== seed) return null;
  // Another input size (EMBED_INPUT) means other crops, even when the byte counts happen to match.
  if (JSON.stringify(meta.sizes) !== JSON.stringify(EMBED_INPUT)) return null;
  for (const kind of ['head', 'torso'] as const) {
    const size = await stat(path.join(dir, `crops-${kind}.u8`)).then((s) => s.size, () => -1);
    if (size !== meta[kind].length * bytesPerCrop(kind)) return null;
  }
  return meta;
}

/** Writes (or finds, unless `fresh`) the crops of every photo to `dir`; returns their metadata. */
export async function dumpCrops(photos: TrainingPhoto[], detections: Detections, cal: Calibration, seed: number, dir: string, fresh: boolean, log: (s: string) => void): Promise<CropsMeta> {
  if (!fresh) {
    const cached = await cachedDump(dir, photos.length, seed);
    if (cached) {
      log(`crops from ${dir}\n`);
      return cached;
    }
  }
  const rand = rng(seed);
  await mkdir(dir, { recursive: true });
  const files = { head: await open(path.join(dir, 'crops-head.u8'), 'w'), torso: await open(path.join(dir, 'crops-torso.u8'), 'w') };
  const meta: CropsMeta = { version: CROPS_VERSION, photos: photos.length, seed, sizes: EMBED_INPUT, head: [], torso: [] };
  try {
    let done = 0;
    for (const photo of photos) {
      const img = await loadRaw(photo.imagePath);
      const key = photoKey(photo);
      const planned = planCrops(photo, detections[key] ?? [], cal, rand);
      for (const kind of ['head', 'torso'] as const) {
        const { width, height } = EMBED_INPUT[kind];
        for (const c of planned[kind]) {
          const pixels = resampleCrop(img, c.rect, width, height, c.flip).data;
          await files[kind].write(Uint8Array.from(pixels, (v) => Math.max(0, Math.min(255, Math.round(v)))));
          meta[kind].push({ label: c.label, fold: photo.fold, augmented: c.augmented, source: c.source, photo: key, ...(kind === 'torso' ? { fluorescent: fluorescentFraction(img, c.rect) } : {}) });
        }
      }
      done++;
      if (done % 100 === 0 || done === photos.length) log(`\rcrops ${done}/${photos.length}: ${meta.head.length} head, ${meta.torso.length} torso`);
    }
  } finally {
    await files.head.close();
    await files.torso.close();
  }
  // The metadata last: a dump cut short is never taken for a complete one.
  await writeFile(path.join(dir, 'crops-meta.json'), JSON.stringify(meta));
  log(`\ncrops written to ${dir}\n`);
  return meta;
}
