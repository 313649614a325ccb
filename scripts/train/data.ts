/**
 * The training photographs (`../shared/data/ppe-training`, see its README): subsets, class
 * mapping onto head (hard hat / bare) and torso (hi-vis / none) labels, and the cache of person
 * detections the training derives its run-time-like crops from. Read in place, never copied.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedDataDir } from '@baret/platform';
import { parseYoloLabels, type YoloObject } from '../yolo.js';

export const TRAINING_DIR = process.env.BARET_PPE_TRAINING ?? sharedDataDir('ppe-training');
/** Scratch folder for detections and crops (git-ignored, outside the shared data). */
export const CACHE_DIR = process.env.BARET_PPE_CACHE ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'tmp', 'ppe-train');

/** Class ids per subset; `vest`/`noVest` are null where vests are not labelled (masked). */
export interface SubsetClasses {
  helmet: number;
  bare: number;
  vest: number | null;
  noVest: number | null;
}

export const SUBSETS: Record<string, SubsetClasses> = {
  'safety-vest-v4-train': { helmet: 0, bare: 2, vest: 1, noVest: 3 },
  'hard-hat-workers': { helmet: 0, bare: 1, vest: null, noVest: null },
  'construction-site-safety': { helmet: 0, bare: 2, vest: 7, noVest: 4 },
};

export type HeadLabel = 'hat' | 'bare';
export type TorsoLabel = 'vest' | 'none';

/** A labelled box in pixels of the original photo, `[x, y, w, h]`. */
export interface LabelledBox {
  kind: 'head' | 'torso';
  label: HeadLabel | TorsoLabel;
  box: [number, number, number, number];
}

export interface TrainingPhoto {
  subset: string;
  file: string;
  imagePath: string;
  boxes: LabelledBox[];
  /** Vest classes are not labelled in this subset: torso crops from it are not used. */
  vestMasked: boolean;
  /** A stable split for model selection (never the validation photos of `ppe-photos`). */
  fold: 'train' | 'holdout';
}

/** FNV-1a hash of a name, for a split that does not depend on file order. */
export function stableHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function toBoxes(objects: YoloObject[], cls: SubsetClasses, w: number, h: number): LabelledBox[] {
  const out: LabelledBox[] = [];
  for (const o of objects) {
    const px: [number, number, number, number] = [o.box[0] * w, o.box[1] * h, o.box[2] * w, o.box[3] * h];
    if (o.cls === cls.helmet) out.push({ kind: 'head', label: 'hat', box: px });
    else if (o.cls === cls.bare) out.push({ kind: 'head', label: 'bare', box: px });
    else if (cls.vest !== null && o.cls === cls.vest) out.push({ kind: 'torso', label: 'vest', box: px });
    else if (cls.noVest !== null && o.cls === cls.noVest) out.push({ kind: 'torso', label: 'none', box: px });
  }
  return out;
}

/** Lists the training photos with their labels in pixels (sizes come from `sizeOf`). */
export async function listTrainingPhotos(sizeOf: (file: string) => Promise<{ width: number; height: number }>): Promise<TrainingPhoto[]> {
  const photos: TrainingPhoto[] = [];
  for (const [subset, cls] of Object.entries(SUBSETS)) {
    const dir = path.join(TRAINING_DIR, subset);
    const files = (await readdir(path.join(dir, 'images'))).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort();
    for (const file of files) {
      const imagePath = path.join(dir, 'images', file);
      const text = await readFile(path.join(dir, 'labels', file.replace(/\.[^.]+$/, '.txt')), 'utf8').catch(() => '');
      const { width, height } = await sizeOf(imagePath);
      photos.push({
        subset,
        file,
        imagePath,
        boxes: toBoxes(parseYoloLabels(text), cls, width, height),
        vestMasked: cls.vest === null,
        fold: stableHash(`${subset}/${file}`) % 100 < 15 ? 'holdout' : 'train',
      });
    }
  }
  return photos;
}

export async function readJsonCache<T>(name: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path.join(CACHE_DIR, name), 'utf8')) as T;
  } catch {
    return null;
  }
}

export async function writeJsonCache(name: string, value: unknown): Promise<void> {
  await mkdir(CACHE_DIR, { recursive: true });
  await writeFile(path.join(CACHE_DIR, name), JSON.stringify(value));
}
