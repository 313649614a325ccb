/**
 * Videos made of labelled validation photos with camera motion (issue 51): each photo is one shot
 * of 3 s — the camera pans across it, zooms in, shakes, goes out of focus for a moment — and the
 * shots are cut together and compressed hard, so that the video evaluation covers what the four
 * real clips do not: bare heads, caps and missing vests. What a person sees in each video comes
 * from the photos' labels alone (never from how Baret judges them): each photo's labelled heads
 * are its workers (different people in every shot), and the items' truth from its classes.
 *
 * The photos are `ppe-photos/safety-vest-v4`'s (the validation set: measured on, never trained on),
 * read in place; the videos are written to a scratch folder and never kept.
 */
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseYoloLabels } from '../yolo.js';
import { labelTextFor } from './measure.js';
import type { ClipTruth, Truth, Wearing } from './videos.js';

const run = promisify(execFile);

/** safety-vest-v4's classes. */
const CLS = { helmet: 0, vest: 1, bare: 2, noVest: 3 } as const;

const SHOT_SECONDS = 3;
const FPS = 25;
const SIZE = { w: 640, h: 480 };

/** The camera of one shot (see {@link shotFilter}). */
export type Motion = 'pan' | 'zoom' | 'shake' | 'blur';

interface Photo {
  file: string;
  path: string;
  counts: Map<number, number>;
}

/**
 * The ffmpeg filter of one shot: the photo letterboxed to 4:3, then a moving window over it —
 * `pan` slides from the left third to the right at a slight zoom, `zoom` pushes in from the whole
 * picture to 1.35×, `shake` jitters a zoomed window a few pixels each frame, `blur` holds the
 * picture and throws it out of focus for the middle second.
 */
export function shotFilter(input: number, motion: Motion): string {
  const frames = SHOT_SECONDS * FPS;
  const box = `[${input}:v]scale=${SIZE.w * 2}:${SIZE.h * 2}:force_original_aspect_ratio=decrease,pad=${SIZE.w * 2}:${SIZE.h * 2}:(ow-iw)/2:(oh-ih)/2,setsar=1`;
  const zp = (z: string, x: string, y: string) => `zoompan=z='${z}':x='${x}':y='${y}':d=1:s=${SIZE.w}x${SIZE.h}:fps=${FPS}`;
  switch (motion) {
    case 'pan':
      return `${box},${zp('1.2', `(iw-iw/zoom)*on/${frames}`, '(ih-ih/zoom)/2')},format=yuv420p[v${input}]`;
    case 'zoom':
      return `${box},${zp(`1+0.35*on/${frames}`, '(iw-iw/zoom)/2', '(ih-ih/zoom)/3')},format=yuv420p[v${input}]`;
    case 'shake':
      return `${box},${zp('1.15', '(iw-iw/zoom)/2+12*sin(on*1.7)', '(ih-ih/zoom)/2+9*cos(on*2.3)')},format=yuv420p[v${input}]`;
    case 'blur':
      return `${box},${zp('1.05', '(iw-iw/zoom)/2', '(ih-ih/zoom)/2')},gblur=sigma=4:enable='between(t,1,2)',format=yuv420p[v${input}]`;
  }
}

/** Cuts the shots together into one H.264 video, compressed hard (CRF 34), keyframe every 2 s. */
export async function makeVideo(out: string, shots: Array<{ photo: string; motion: Motion }>): Promise<void> {
  const inputs = shots.flatMap((s) => ['-loop', '1', '-framerate', String(FPS), '-t', String(SHOT_SECONDS), '-i', s.photo]);
  const filters = shots.map((s, i) => shotFilter(i, s.motion));
  const joined = `${shots.map((_, i) => `[v${i}]`).join('')}concat=n=${shots.length}:v=1:a=0[out]`;
  await run(
    'ffmpeg',
    ['-hide_banner', '-v', 'error', '-y', ...inputs, '-filter_complex', [...filters, joined].join(';'), '-map', '[out]', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '34', '-g', String(2 * FPS), '-pix_fmt', 'yuv420p', out],
    { maxBuffer: 16 * 1024 * 1024 },
  );
}

async function photosOf(dir: string): Promise<Photo[]> {
  const images = join(dir, 'images');
  const files = (await readdir(images)).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort();
  return Promise.all(
    files.map(async (file) => {
      const text = await labelTextFor(join(dir, 'labels'), file);
      const counts = new Map<number, number>();
      for (const { cls } of parseYoloLabels(text)) counts.set(cls, (counts.get(cls) ?? 0) + 1);
      return { file, path: join(images, file), counts };
    }),
  );
}

const n = (p: Photo, id: number) => p.counts.get(id) ?? 0;
/** Every n-th of `items` so that `count` are taken, spread over the whole list (chosen by name order, never by how Baret judges them). */
const spread = <T>(items: T[], count: number): T[] => (items.length <= count ? items : Array.from({ length: count }, (_, i) => items[Math.floor((i * items.length) / count)]!));

/** A made video: its file name, its shots and what a person sees in it. */
export interface MadeVideo {
  name: string;
  shots: Array<{ photo: string; motion: Motion }>;
  truth: ClipTruth;
}

/**
 * The videos, chosen from the labels:
 * - four bare-headed people (one per photo, one labelled head each, no hard hat), 3 s each, with a
 *   pan, a zoom, shake and blur: four workers, each without a hard hat;
 * - workers without a vest (a hard hat, no vest, one worker per photo): each without hi-vis;
 * - crews in hard hats and vests (two to four heads per photo, nothing missing): nobody flagged;
 * - a crew where one worker goes bare-headed, after two equipped crews: exactly one flagged.
 */
export async function madeVideos(photosDir: string): Promise<MadeVideo[]> {
  const photos = await photosOf(photosDir);
  const motions: Motion[] = ['pan', 'zoom', 'shake', 'blur'];
  const bareAlone = photos.filter((p) => n(p, CLS.bare) === 1 && n(p, CLS.helmet) === 0);
  const noVestAlone = photos.filter((p) => n(p, CLS.helmet) === 1 && n(p, CLS.bare) === 0 && n(p, CLS.noVest) === 1 && n(p, CLS.vest) === 0);
  const equippedCrews = photos.filter((p) => n(p, CLS.helmet) >= 2 && n(p, CLS.helmet) <= 4 && n(p, CLS.bare) === 0 && n(p, CLS.noVest) === 0 && n(p, CLS.vest) >= n(p, CLS.helmet));
  const oneBare = photos.filter((p) => n(p, CLS.bare) === 1 && n(p, CLS.helmet) >= 1 && n(p, CLS.helmet) <= 3);
  const heads = (ps: Photo[]) => ps.reduce((s, p) => s + n(p, CLS.helmet) + n(p, CLS.bare), 0);
  // Hi-vis as the labels say: every labelled torso with a vest, or none.
  const hiVis = (ps: Photo[]): Wearing => (ps.every((p) => n(p, CLS.noVest) === 0 && n(p, CLS.vest) > 0) ? 'all' : ps.every((p) => n(p, CLS.vest) === 0 && n(p, CLS.noVest) > 0) ? 'none' : 'unclear');
  const out: MadeVideo[] = [];
  const shots = (ps: Photo[], from = 0) => ps.map((p, i) => ({ photo: p.path, motion: motions[(i + from) % motions.length]! }));
  for (const [k, four] of [spread(bareAlone, 8).slice(0, 4), spread(bareAlone, 8).slice(4, 8)].entries()) {
    if (four.length < 4) continue;
    out.push({ name: `made_bare_heads_${k + 1}.mp4`, shots: shots(four, k), truth: { workers: [4, 4], hard_hat: 'none', hi_vis: hiVis(four), scene: `four bare-headed people: ${four.map((p) => p.file.slice(0, 12)).join(', ')}` } });
  }
  const vestless = spread(noVestAlone, 3);
  if (vestless.length > 0) {
    out.push({ name: 'made_no_vest.mp4', shots: shots(vestless, 1), truth: { workers: [vestless.length, vestless.length], hard_hat: 'all', hi_vis: 'none', scene: `workers in hard hats without a vest: ${vestless.map((p) => p.file.slice(0, 12)).join(', ')}` } });
  }
  for (const [k, crew] of [spread(equippedCrews, 6).slice(0, 3), spread(equippedCrews, 6).slice(3, 6)].entries()) {
    if (crew.length === 0) continue;
    const h = heads(crew);
    out.push({ name: `made_equipped_${k + 1}.mp4`, shots: shots(crew, k + 2), truth: { workers: [Math.max(1, h - crew.length), h], hard_hat: 'all', hi_vis: 'all', scene: `crews in hard hats and vests: ${crew.map((p) => p.file.slice(0, 12)).join(', ')}` } });
  }
  const last = spread(oneBare, 1)[0];
  const before = spread(equippedCrews, 2);
  if (last && before.length === 2) {
    const crew = [...before, last];
    const h = heads(crew);
    out.push({ name: 'made_one_bare.mp4', shots: shots(crew, 3), truth: { workers: [Math.max(1, h - crew.length), h], hard_hat: 'one_bare', hi_vis: 'unclear', scene: `two equipped crews, then ${last.file.slice(0, 12)} with one bare head` } });
  }
  return out;
}

/** Makes the videos into `dir`; their truth, by file name. */
export async function writeMadeVideos(photosDir: string, dir: string, onVideo?: (name: string) => void): Promise<Truth> {
  const truth: Truth = {};
  for (const v of await madeVideos(photosDir)) {
    onVideo?.(v.name);
    await makeVideo(join(dir, v.name), v.shots);
    truth[v.name] = v.truth;
  }
  return truth;
}
