/**
 * Background crops of synthetic pictures for the head check (issue 38): frames of ffmpeg's
 * generated sources, decoded as a job's frames are, cut where the head detector finds a "head" on
 * them (as the run time cuts a head on no person) and at seeded random squares. The head check's
 * negatives from the training photos are all real scenes; a test pattern's round, colourful shapes
 * (mandelbrot's bulbs) were heads to it. None of the sources or settings the tests judge is used
 * here (testsrc, testsrc2, smptebars, mandelbrot as ffmpeg draws it by default, Chromium's fake
 * camera): those stay held out. Written beside the photo crops (`crops-patterns.u8`, one metadata
 * row per crop); always in the training fold, never the hold-out that picks `notHead`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodeImage, type RawImage } from '../../../services/analysis/src/engine/detector.js';
import { detectHeads, loadHeadDetector } from '../../../services/analysis/src/engine/headDetector.js';
import { LITE_INPUT } from '../../../services/analysis/src/engine/liteBackbone.js';
import { headBoxPlace, headCropRect, resampleCrop, type Rect } from '../../../services/analysis/src/engine/ppeFeatures.js';
import { jitter, rng } from '../samples.js';
import { liteCropBytes, LITE_DIR } from './crops.js';

/** Bump when the crops change: a cached dump of another version is rebuilt. */
const VERSION = 2;
/**
 * ffmpeg `lavfi` sources (with their settings) whose frames give the crops: fractals, cellular
 * automata, gradients, colour spectra and bars. Mandelbrot only centred off its default path (other
 * places and zooms, some in other colourings), so that the default one the tests judge stays unseen.
 */
export const PATTERN_SOURCES = [
  // mandelbrot's own colours, centred elsewhere than its default path (where the head detector
  // finds "heads" on its bulbs too), and other colourings.
  'mandelbrot=start_x=-0.1:start_y=0.65:start_scale=1.2:end_scale=0.05',
  'mandelbrot=start_x=-1.25:start_y=0.02:start_scale=0.8:end_scale=0.05',
  'mandelbrot=start_x=-0.5:start_y=0:start_scale=2.2:end_scale=2:outer=iteration_count',
  'mandelbrot=start_x=-1.75:start_y=0:start_scale=0.2:end_scale=0.01',
  'mandelbrot=start_x=0.28:start_y=0.53:start_scale=0.4:end_scale=0.02',
  'mandelbrot=start_x=-0.3:start_y=-0.3:start_scale=2.5:end_scale=2.4',
  'mandelbrot=start_x=-0.743643887037151:start_y=0.131825904205330:start_scale=0.5:end_scale=0.0005:outer=iteration_count:inner=period',
  'sierpinski=type=carpet',
  'sierpinski=type=triangle',
  'cellauto=rule=110:random_fill_ratio=0.5:random_seed=1:scroll=1',
  'life=ratio=0.3:seed=1:mold=10:life_color=#ff8040:death_color=#206020:mold_color=#c0c0ff',
  'gradients=n=3:seed=1:type=radial',
  'gradients=n=5:seed=2:type=circular',
  'gradients=n=4:seed=3:type=spiral',
  'gradients=n=6:seed=4:type=linear',
  'colorspectrum=type=all',
  'pal75bars',
  'rgbtestsrc',
  'yuvtestsrc',
] as const;
/** Frames per source (one a second from 0 s), at 1280 × 720. */
const FRAMES = 16;
/** Random squares per frame, besides the detector's heads. */
const SQUARES = 3;
/** Shifted and scaled copies of each head the detector finds (each also mirrored at random). */
const JITTERED = 10;

export interface PatternCropsMeta {
  version: number;
  seed: number;
  size: number;
  sources: readonly string[];
  frames: number;
  squares: number;
  jittered: number;
  /** One row per crop: its source and frame, and whether the head detector found it. */
  rows: Array<{ source: string; frame: number; detected: boolean }>;
}

async function frames(source: string): Promise<RawImage[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'baret-patterns-'));
  try {
    await promisify(execFile)('ffmpeg', ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', `${source}${source.includes('=') ? ':' : '='}size=1280x720:rate=1`, '-t', String(FRAMES), '-frames:v', String(FRAMES), path.join(dir, 'f-%02d.png')]);
    const out: RawImage[] = [];
    for (const f of (await readdir(dir)).sort()) out.push((await decodeImage(await readFile(path.join(dir, f)))).work);
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function squares(img: RawImage, rand: () => number): Rect[] {
  return Array.from({ length: SQUARES }, () => {
    const side = Math.min(img.width, img.height) * (0.06 + rand() * 0.3);
    const x0 = rand() * (img.width - side);
    const y0 = rand() * (img.height - side);
    return { x0, y0, x1: x0 + side, y1: y0 + side };
  });
}

/** Writes (or finds) the pattern crops in {@link LITE_DIR} and returns their metadata. */
export async function dumpPatternCrops(seed: number, log: (s: string) => void): Promise<PatternCropsMeta> {
  const metaFile = path.join(LITE_DIR, 'patterns-meta.json');
  const cropsFile = path.join(LITE_DIR, 'crops-patterns.u8');
  const cached = await readFile(metaFile, 'utf8').then((s) => JSON.parse(s) as PatternCropsMeta, () => null);
  if (cached && cached.version === VERSION && cached.seed === seed && cached.size === LITE_INPUT && JSON.stringify([cached.sources, cached.frames, cached.squares, cached.jittered]) === JSON.stringify([PATTERN_SOURCES, FRAMES, SQUARES, JITTERED])) {
    if ((await stat(cropsFile).then((s) => s.size, () => -1)) === cached.rows.length * liteCropBytes) return cached;
  }
  const detector = await loadHeadDetector();
  const rand = rng(seed);
  const meta: PatternCropsMeta = { version: VERSION, seed, size: LITE_INPUT, sources: PATTERN_SOURCES, frames: FRAMES, squares: SQUARES, jittered: JITTERED, rows: [] };
  const out = await open(cropsFile, 'w');
  try {
    for (const source of PATTERN_SOURCES) {
      for (const [frame, img] of (await frames(source)).entries()) {
        const heads = (await detectHeads(img, detector)).flatMap((h) => {
          const place = headBoxPlace(h.box, detector.model.crop);
          const rect = headCropRect(place.cx, place.eyeY, place.width);
          return [{ rect, flip: false }, ...Array.from({ length: JITTERED }, () => ({ rect: jitter(rect, rand), flip: rand() < 0.5 }))];
        });
        for (const [i, { rect, flip }] of [...heads, ...squares(img, rand).map((rect) => ({ rect, flip: false }))].entries()) {
          const pixels = resampleCrop(img, rect, LITE_INPUT, LITE_INPUT, flip).data;
          await out.write(Uint8Array.from(pixels, (v) => Math.max(0, Math.min(255, Math.round(v)))));
          meta.rows.push({ source, frame, detected: i < heads.length });
        }
      }
      log(`\rpattern crops: ${meta.rows.length} (${meta.rows.filter((r) => r.detected).length} found by the head detector)`);
    }
  } finally {
    await out.close();
  }
  await writeFile(metaFile, JSON.stringify(meta));
  log('\n');
  return meta;
}
