/**
 * The head crops of the EfficientNet-Lite2 head classifier (docs/adr/0028): every labelled head of
 * the training photos (`../shared/data/ppe-training`, read in place), cut with the run time's crop
 * geometry (`headBoxCropRect`, the box→head relation pinned below) and resampler at the backbone's
 * input size, and squares of background (no labelled box near them) for the head check. No person
 * detector runs: the crops depend on the labels alone, so a run takes minutes, not the hour the
 * detector's pass over 1,845 photos takes on this machine. Written as uint8 RGB rows with one
 * metadata row per crop to `tmp/ppe-train/lite/` (git-ignored). The validation photos are never read.
 */
import { mkdir, open, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LITE_INPUT } from '../../../services/analysis/src/engine/liteBackbone.js';
import { headBoxCropRect, resampleCrop, type Rect } from '../../../services/analysis/src/engine/ppeFeatures.js';
import { CACHE_DIR, type HeadLabel, type TrainingPhoto } from '../data.js';
import { photoKey } from '../detect.js';
import { loadRaw, rng, type Calibration } from '../samples.js';

/**
 * The labelled-box → head relation (box units) the crops are cut with: v4's calibration, measured
 * by `npm run train` on the person detector's matches (ppe-classifier.json v4, `metrics.calibration`),
 * pinned here so that these crops need no detector pass.
 */
export const LITE_CALIBRATION: Calibration = {
  head: {
    hat: { dx: -0.0037723728031720813, eye: 0.592814371257485, width: 0.7241910402110023, n: 1321 },
    bare: { dx: -0.0000010666723566823892, eye: 0.5303039706143313, width: 0.7783489139876513, n: 538 },
  },
  torso: { x0: 0.20212923405668853, y0: 0.20167224080267557, x1: 0.8080000000000002, y1: 0.8042253521126755, n: 765 },
};

export const LITE_DIR = path.join(CACHE_DIR, 'lite');
/** Bump when the crops change: a cached dump of another version is rebuilt. */
const VERSION = 2;

/** Head classes in the classifier's order (ppeModel.ts), then {@link BACKGROUND}. */
const HEAD_LABELS: Record<HeadLabel, number> = { hat: 0, bare: 1, other: 2 };
/** Label of a background crop: no head (the head check's negatives). */
export const BACKGROUND = 3;
/** Labelled heads narrower than this (pixels) are too small to learn from (as samples.ts). */
const MIN_LABEL_HEAD = 10;
/** Background crops tried per photo. */
const BACKGROUND_PER_PHOTO = 3;
/**
 * Subsets whose photos give background crops: not hard-hat-workers, whose mirrored margins hold
 * unlabelled people (its README).
 */
const BACKGROUND_SUBSETS = new Set(['safety-vest-v4-train', 'construction-site-safety', 'hard-hat-or-headwear']);

export interface LiteCropRow {
  label: number;
  fold: TrainingPhoto['fold'];
  cvFold?: number;
  photo: string;
}

export interface LiteCropsMeta {
  version: number;
  photos: number;
  seed: number;
  size: number;
  head: LiteCropRow[];
}

export const liteCropBytes = LITE_INPUT * LITE_INPUT * 3;

const overlaps = (a: Rect, b: Rect): boolean => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

/**
 * Squares of a photo that touch no labelled box (heads and torsos, each grown by half its size),
 * as large as the photo's head crops (or a fifth of its short side when it has none), at seeded
 * random places.
 */
function backgroundRects(photo: TrainingPhoto, width: number, height: number, heads: Rect[], rand: () => number): Rect[] {
  const taken = photo.boxes.map(({ box: [x, y, w, h] }) => ({ x0: x - w / 2, y0: y - h / 2, x1: x + 1.5 * w, y1: y + 1.5 * h }));
  const sides = heads.length > 0 ? heads.map((r) => r.x1 - r.x0) : [Math.min(width, height) / 5];
  const out: Rect[] = [];
  for (let tries = 0; tries < 20 * BACKGROUND_PER_PHOTO && out.length < BACKGROUND_PER_PHOTO; tries++) {
    const side = Math.min(sides[Math.floor(rand() * sides.length)]!, width, height);
    const x0 = rand() * (width - side);
    const y0 = rand() * (height - side);
    const r = { x0, y0, x1: x0 + side, y1: y0 + side };
    if (!taken.some((t) => overlaps(t, r)) && !out.some((o) => overlaps(o, r))) out.push(r);
  }
  return out;
}

/**
 * Writes (or finds) the crops of every photo — each labelled head (no mirrored or jittered copies:
 * train_head.py mirrors the training crops itself) and the background crops — and returns their
 * metadata.
 */
export async function dumpLiteCrops(photos: TrainingPhoto[], seed: number, log: (s: string) => void): Promise<LiteCropsMeta> {
  const metaFile = path.join(LITE_DIR, 'crops-meta.json');
  const cropsFile = path.join(LITE_DIR, 'crops-head.u8');
  const cached = await readFile(metaFile, 'utf8').then((s) => JSON.parse(s) as LiteCropsMeta, () => null);
  if (cached && cached.version === VERSION && cached.photos === photos.length && cached.seed === seed && cached.size === LITE_INPUT) {
    const size = await stat(cropsFile).then((s) => s.size, () => -1);
    if (size === cached.head.length * liteCropBytes) {
      log(`crops from ${LITE_DIR}\n`);
      return cached;
    }
  }
  await mkdir(LITE_DIR, { recursive: true });
  const rand = rng(seed);
  const meta: LiteCropsMeta = { version: VERSION, photos: photos.length, seed, size: LITE_INPUT, head: [] };
  const out = await open(cropsFile, 'w');
  try {
    let done = 0;
    for (const photo of photos) {
      const img = await loadRaw(photo.imagePath);
      const heads = photo.boxes.filter((b) => b.kind === 'head' && b.box[2] >= MIN_LABEL_HEAD);
      // Other headgear is boxed with the hat on, like a hard hat: placed with the hard hats' relation (samples.ts).
      const crops = heads.map((b) => ({ rect: headBoxCropRect(b.box, LITE_CALIBRATION.head[b.label === 'bare' ? 'bare' : 'hat']), label: HEAD_LABELS[b.label as HeadLabel] }));
      if (BACKGROUND_SUBSETS.has(photo.subset)) {
        for (const rect of backgroundRects(photo, img.width, img.height, crops.map((c) => c.rect), rand)) crops.push({ rect, label: BACKGROUND });
      }
      for (const c of crops) {
        const pixels = resampleCrop(img, c.rect, LITE_INPUT, LITE_INPUT).data;
        await out.write(Uint8Array.from(pixels, (v) => Math.max(0, Math.min(255, Math.round(v)))));
        meta.head.push({ label: c.label, fold: photo.fold, ...(photo.cvFold !== undefined ? { cvFold: photo.cvFold } : {}), photo: photoKey(photo) });
      }
      done++;
      if (done % 100 === 0 || done === photos.length) log(`\rcrops ${done}/${photos.length}: ${meta.head.length}`);
    }
  } finally {
    await out.close();
  }
  await writeFile(metaFile, JSON.stringify(meta));
  log('\n');
  return meta;
}
