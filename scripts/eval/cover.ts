/**
 * Faces covered, not the evidence (issue 39; `npm run eval -- --blur`): each labelled photo goes
 * the way a job's frame goes — a JPEG judged by the offline analyzer first, then its faces covered
 * on the workers the judge found (`coverFaces`) — and the patches are compared with the labels:
 * patches per photo against labelled heads (target: at most the heads + 10 %), patches that cover
 * more than 10 % of a labelled vest or torso box outside its own worker's head and chin (issue 51:
 * a patch over the worker's own face is no patch over the vest; target: none), and patches over a
 * labelled hard hat above its brim (issue 51: a patch never hides the item judged; target: none).
 * Then each worker the judge found is cut out of the covered photo as a violation's crop is, and
 * covered as a crop is (`coverWorkerCrop`, pipeline.ts): crops whose patches cover more than 10 % of
 * the worker's own hard hat above the brim, or of their own vest or torso outside their head and
 * chin (issue 51: a violation's crop shows the head and the torso; target: none). The faces test
 * (tests/faces.e2e) proves, apart, that no face is left.
 */
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { detectFaces, type RawImage } from '../../services/analysis/src/engine/detector.js';
import { FACE_SURE_SCORE, blurFaces, centreIn, centreOf, coveredIn, sameFace, type FaceBlurResult, type People } from '../../services/analysis/src/engine/faceBlur.js';
import { judgeFrameRaw } from '../../services/analysis/src/engine/ppe.js';
import { coverWorkerCrop, cropWorker } from '../../services/analysis/src/pipeline.js';
import { parseYoloLabels } from '../yolo.js';
import type { ClassIds } from './measure.js';

type Box = [number, number, number, number];

/** What covering the faces of the photos did, against their labels. */
export interface CoverFigures {
  photos: number;
  /** Labelled heads (hard hat, bare head, other headgear). */
  heads: number;
  patches: number;
  /** Labelled vest or torso boxes, and the patches covering more than 10 % of one of them. */
  torsos: number;
  patchesOverTorso: number;
  /**
   * The same, counting only the vest or torso box's pixels outside its own worker's head and chin
   * ({@link ownHeadAndChin}; many vest boxes are drawn up over the chin): the evidence's measure (issue 51).
   */
  patchesOverTorsoOutsideOwnHead: number;
  /** The largest share of a labelled vest or torso box one patch covers (all its pixels). */
  worstTorsoShare: number;
  /** The largest share outside its worker's own head and chin. */
  worstTorsoShareOutsideOwnHead: number;
  /** Labelled hard hats, and the patches covering more than 10 % of one above its brim ({@link hatAboveBrim}). */
  hardHats: number;
  patchesOverHat: number;
  /** The largest share of a hard hat above its brim one patch covers. */
  worstHatShare: number;
  /** Faces BlazeFace still finds at its default score on the covered photos where the photo had one. */
  remaining: number;
  /** Of those, the faces on a labelled head (a worker's face left: the privacy figure; the rest are BlazeFace's faces in trees, walls and shirts). */
  remainingOnHeads: number;
  /**
   * Of those, the faces whose box the patches cover less than half of (issue 51): a face showing.
   * The others are mostly patch: BlazeFace at its default score takes a patch under a hat's brim, or
   * a patch and the forehead above it, for a face.
   */
  remainingOnHeadsShowing: number;
  /** Workers the judge found, each cut out as a violation's crop (people rule only; 0 covering every face). */
  crops: number;
  /** Crops whose patches cover more than 10 % of their worker's own labelled hard hat above the brim (a hat whose centre lies in the worker's box). */
  cropsOverHat: number;
  /** Of those, the crops whose patches cover more than a third of it: a hat a reviewer can no longer see (issue 53). */
  cropsHidingHat: number;
  /**
   * The same two counts, leaving out the hat's pixels inside the box of another person's face
   * BlazeFace is sure of (≥ {@link FACE_SURE_SCORE}): a face in front of the hat hides it, and its
   * patch is the privacy the spec asks for; what is left is hat the patches hide and nothing else did.
   */
  cropsOverHatBesideFaces: number;
  cropsHidingHatBesideFaces: number;
  /** Crops whose patches cover more than 10 % of their worker's own labelled vest or torso box outside its head and chin. */
  cropsOverTorso: number;
  /** Faces BlazeFace finds at its default score on a covered crop where it found one on the same crop of the photo, on a labelled head. */
  cropFacesLeft: number;
}

/**
 * The labelled head of the worker a vest or torso box belongs to: a head whose centre lies across
 * the box, starting above it, whose bottom (the chin) lies from half the head's height above the
 * box's top to inside the box (a close-up's head box reaches far down its torso box) — the one
 * whose chin is nearest the middle of the box's top.
 */
export function ownHead(torso: Box, heads: readonly Box[]): Box | undefined {
  const [tx, ty, tw, th] = torso;
  const near = heads.filter(([x, y, w, h]) => x + w / 2 >= tx && x + w / 2 <= tx + tw && y < ty && y + h >= ty - 0.5 * h && y + h <= ty + th);
  const distance = ([x, y, w, h]: Box) => Math.hypot(x + w / 2 - (tx + tw / 2), y + h - ty);
  return near.sort((a, b) => distance(a) - distance(b))[0];
}

/** A worker's own head and chin (issue 51): the labelled head box (hat or hair to chin), a sixth of its height further down. */
export const ownHeadAndChin = ([x, y, w, h]: Box): Box => [x, y, w, h * (1 + 1 / 6)];

/**
 * A labelled hard hat above its brim: the upper 30 % of the head box. The brows (the top of a face
 * BlazeFace finds at 0.7 or more) lie at 0.45 of a labelled hard-hat head on safety-vest-v4 (median),
 * below 0.33 in 95 % of them, never above 0.25.
 */
export const hatAboveBrim = ([x, y, w, h]: Box): Box => [x, y, w, 0.3 * h];

/**
 * The labelled hard hat a worker's crop judges (issue 53: a patch never hides the item judged): the
 * one on the head the judge placed on that worker (`head`: a labelled hard-hat head holding its
 * centre, or whose centre it holds; the nearest of several). A worker the judge gave no head is
 * judged on the hard hat nearest the top middle of their box, among those whose centre lies in it.
 * In a crowd a worker's box holds their neighbours' heads too: those are not the item judged.
 */
export function ownHat(person: Box, head: Box | undefined, hats: readonly Box[]): Box | undefined {
  const away = (b: Box, [x, y]: [number, number]) => Math.hypot(centreOf(b)[0] - x, centreOf(b)[1] - y);
  const nearest = (to: [number, number], among: readonly Box[]) => [...among].sort((a, b) => away(a, to) - away(b, to))[0];
  if (head) return nearest(centreOf(head), hats.filter((h) => centreIn(head, [h]) || centreIn(h, [head])));
  return nearest([person[0] + person[2] / 2, person[1]], hats.filter((h) => centreIn(h, [person])));
}

/**
 * A violation's crop whose patches cover more than 10 % of the item judged: the labelled item, the
 * patches (`regions`: the frame's, score 1, and the faces the crop's own search found) and the
 * worker's box, in its pixels.
 */
export interface CropOver {
  /** The crop's number among all the crops measured (1, 2, …). */
  n: number;
  photo: string;
  item: 'hard hat' | 'torso';
  crop: Buffer;
  share: number;
  labelled: Box[];
  regions: FaceBlurResult['regions'];
  worker: Box;
}

/** How faces are covered: only the faces of the people found (what a job does, FaceBlurOptions.people), or every face found (before issue 39). */
export type CoverRule = 'every face' | 'people';

/** A job's cover of one frame: judged first, then faces covered on the judge's workers (`people`, answered too), or, `every face`, all faces found. */
export async function coverAsJob(jpeg: Buffer, rule: CoverRule = 'people'): Promise<FaceBlurResult & { people?: People; workers?: Array<{ box: Box; head?: Box }> }> {
  if (rule === 'every face') return blurFaces(jpeg, { quality: 90 });
  const { data, info } = await sharp(jpeg).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const frame: RawImage = { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  // The judge's search of the frame gives the cover its whole-image faces, as in a job (pipeline.ts cover).
  const { persons, faces } = await judgeFrameRaw(frame);
  const people = { persons: persons.map((p) => p.box), heads: persons.flatMap((p) => (p.head ? [p.head] : [])) };
  const workers = persons.map((p) => ({ box: p.box, ...(p.head ? { head: p.head } : {}) }));
  return { ...(await blurFaces(jpeg, { quality: 90, people, faces })), people, workers };
}

export async function measureCover(
  photos: ReadonlyArray<{ image: string; labelText: string }>,
  classes: ClassIds,
  rule: CoverRule = 'people',
  onProgress?: (done: number, total: number) => void,
  /** Each crop whose patches cover more than 10 % of its worker's hard hat above the brim or of their vest or torso (`--blur-out`: to look at). */
  onOver?: (c: CropOver) => void | Promise<void>,
): Promise<CoverFigures> {
  const headClasses = new Set([classes.helmet, ...(classes.bareHead ?? []), classes.otherHeadgear].filter((c): c is number => c !== undefined));
  const torsoClasses = new Set([classes.vest, classes.noVest].filter((c): c is number => c !== undefined));
  const f: CoverFigures = {
    photos: 0,
    heads: 0,
    patches: 0,
    torsos: 0,
    patchesOverTorso: 0,
    patchesOverTorsoOutsideOwnHead: 0,
    worstTorsoShare: 0,
    worstTorsoShareOutsideOwnHead: 0,
    hardHats: 0,
    patchesOverHat: 0,
    worstHatShare: 0,
    remaining: 0,
    remainingOnHeads: 0,
    remainingOnHeadsShowing: 0,
    crops: 0,
    cropsOverHat: 0,
    cropsHidingHat: 0,
    cropsOverHatBesideFaces: 0,
    cropsHidingHatBesideFaces: 0,
    cropsOverTorso: 0,
    cropFacesLeft: 0,
  };
  for (const [i, photo] of photos.entries()) {
    const jpeg = await sharp(await readFile(photo.image)).rotate().jpeg({ quality: 90 }).toBuffer();
    const covered = await coverAsJob(jpeg, rule);
    const { width, height } = covered;
    const labels = parseYoloLabels(photo.labelText).map((o) => ({ cls: o.cls, box: [o.box[0] * width, o.box[1] * height, o.box[2] * width, o.box[3] * height] as Box }));
    const torsos = labels.filter((l) => torsoClasses.has(l.cls)).map((l) => l.box);
    f.photos++;
    const labelledHeads = labels.filter((l) => headClasses.has(l.cls)).map((l) => l.box);
    const hatHeads = labels.filter((l) => l.cls === classes.helmet).map((l) => l.box);
    const hats = hatHeads.map(hatAboveBrim);
    const own = torsos.map((t) => ownHead(t, labelledHeads));
    f.heads += labelledHeads.length;
    f.torsos += torsos.length;
    f.hardHats += hats.length;
    f.patches += covered.regions.length;
    for (const r of covered.regions) {
      // The pixels of a vest its patches cover (a region merges the patches drawn around one face).
      const mine = covered.filled.filter((p) => centreIn(p, [r.box]));
      // Of the box's own pixels (coveredIn counts whole pixels: a box's partly covered edge pixels count whole).
      const shareOf = (b: Box, except: Box[] = []) => coveredIn(mine, b, except) / Math.max(1, coveredIn([b], b));
      const share = Math.max(0, ...torsos.map((t) => shareOf(t)));
      f.worstTorsoShare = Math.max(f.worstTorsoShare, share);
      if (share > 0.1) f.patchesOverTorso++;
      const outside = Math.max(0, ...torsos.map((t, k) => shareOf(t, own[k] ? [ownHeadAndChin(own[k])] : [])));
      f.worstTorsoShareOutsideOwnHead = Math.max(f.worstTorsoShareOutsideOwnHead, outside);
      if (outside > 0.1) f.patchesOverTorsoOutsideOwnHead++;
      const hat = Math.max(0, ...hats.map((h) => shareOf(h)));
      f.worstHatShare = Math.max(f.worstHatShare, hat);
      if (hat > 0.1) f.patchesOverHat++;
    }
    const photoFaces = (await detectFaces(jpeg)).faces;
    const before = photoFaces.map((x) => x.box);
    const sureFaces = photoFaces.filter((x) => x.score >= FACE_SURE_SCORE).map((x) => x.box);
    const left = (await detectFaces(covered.jpeg)).faces.filter((x) => sameFace(x.box, before));
    f.remaining += left.length;
    // A labelled head with a tenth of margin each side (hand-drawn boxes are tight).
    const heads = labelledHeads.map(([x, y, w, h]): Box => [x - 0.1 * w, y - 0.1 * h, 1.2 * w, 1.2 * h]);
    const onHeads = left.filter((x) => sameFace(x.box, heads));
    f.remainingOnHeads += onHeads.length;
    f.remainingOnHeadsShowing += onHeads.filter((x) => coveredIn(covered.filled, x.box) < 0.5 * coveredIn([x.box], x.box)).length;
    // Each worker's crop, covered as a violation's is: their own hard hat and torso (centre in their box).
    for (const { box: person, head } of covered.workers ?? []) {
      const box = { x: person[0] / width, y: person[1] / height, w: person[2] / width, h: person[3] / height };
      const crop = await coverWorkerCrop((image, opts) => blurFaces(image, opts), covered, box, covered.regions.map((r) => r.box), covered.people);
      const { left: cx, top: cy, scale } = crop.cut;
      const inCrop = ([x, y, w, h]: Box): Box => [(x - cx) * scale, (y - cy) * scale, w * scale, h * scale];
      const shareOf = (b: Box, except: Box[] = []) => coveredIn(crop.filled, inCrop(b), except.map(inCrop)) / Math.max(1, coveredIn([inCrop(b)], inCrop(b)));
      const mine = (b: Box) => centreIn(b, [person]);
      f.crops++;
      const hat = ownHat(person, head, hatHeads);
      const hatShare = hat ? shareOf(hatAboveBrim(hat)) : 0;
      if (hatShare > 0.1) {
        f.cropsOverHat++;
        if (hatShare > 1 / 3) f.cropsHidingHat++;
        await onOver?.({ n: f.crops, photo: photo.image, item: 'hard hat', crop: crop.jpeg, share: hatShare, labelled: [inCrop(hatAboveBrim(hat!))], regions: crop.regions, worker: inCrop(person) });
        const beside = shareOf(hatAboveBrim(hat!), sureFaces.filter((x) => !centreIn(x, [hat!])));
        if (beside > 0.1) f.cropsOverHatBesideFaces++;
        if (beside > 1 / 3) f.cropsHidingHatBesideFaces++;
      }
      const torsoShare = Math.max(0, ...torsos.map((t, k) => (mine(t) ? shareOf(t, own[k] ? [ownHeadAndChin(own[k])] : []) : 0)));
      if (torsoShare > 0.1) {
        f.cropsOverTorso++;
        await onOver?.({ n: f.crops, photo: photo.image, item: 'torso', crop: crop.jpeg, share: torsoShare, labelled: torsos.filter(mine).map(inCrop), regions: crop.regions, worker: inCrop(person) });
      }
      const plain = (await detectFaces((await cropWorker(jpeg, box)).jpeg)).faces.map((x) => x.box);
      f.cropFacesLeft += (await detectFaces(crop.jpeg)).faces.filter((x) => sameFace(x.box, plain) && sameFace(x.box, heads.map(inCrop))).length;
    }
    onProgress?.(i + 1, photos.length);
  }
  return f;
}

/** Writes a crop over its item ({@link CropOver}) into the folder `dir` as a PNG with the labelled item (green), the frame's patches (red), the crop's own (magenta) and the worker's box (yellow) drawn on it. */
export async function writeCropOver(dir: string, c: CropOver): Promise<void> {
  const { width = 1, height = 1 } = await sharp(c.crop).metadata();
  const rect = ([x, y, w, h]: Box, colour: string) => `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="${colour}" stroke-width="2"/>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${[...c.labelled.map((b) => rect(b, 'lime')), ...c.regions.map((r) => rect(r.box, r.score === 1 ? 'red' : 'magenta')), rect(c.worker, 'yellow')].join('')}</svg>`;
  const name = `${String(c.n).padStart(3, '0')}-${c.item.replace(' ', '-')}-${Math.round(c.share * 100)}pct-${basename(c.photo).replace(/\.[^.]+$/, '')}.png`;
  await sharp(c.crop).composite([{ input: Buffer.from(svg) }]).png().toFile(join(dir, name));
}

export function formatCover(f: CoverFigures, rule: CoverRule = 'people'): string {
  const perPhoto = (n: number) => (n / Math.max(1, f.photos)).toFixed(2);
  const pct = (share: number) => `${(share * 100).toFixed(0)} %`;
  const how = rule === 'people' ? 'faces covered as a job covers them (judged first, then the faces of the workers found)' : 'every face found covered (before issue 39)';
  return (
    `${how}: ${f.patches} patches on ${f.photos} photos ` +
    `(${perPhoto(f.patches)} per photo) against ${f.heads} labelled heads (${perPhoto(f.heads)} per photo; target ≤ heads + 10 %: ${f.patches <= f.heads * 1.1 ? 'met' : 'NOT met'}); ` +
    `${f.patchesOverTorso} patches cover more than 10 % of one of ${f.torsos} labelled vest or torso boxes (the most: ${pct(f.worstTorsoShare)}), ` +
    `${f.patchesOverTorsoOutsideOwnHead} counting only the box's pixels outside its worker's own head and chin (the most: ${pct(f.worstTorsoShareOutsideOwnHead)}; target none: ${f.patchesOverTorsoOutsideOwnHead === 0 ? 'met' : 'NOT met'}); ` +
    `${f.patchesOverHat} patches cover more than 10 % of one of ${f.hardHats} labelled hard hats above the brim (the most: ${pct(f.worstHatShare)}; target none: ${f.patchesOverHat === 0 ? 'met' : 'NOT met'}); ` +
    `faces still found at BlazeFace's default score where the photo had one: ${f.remaining}, of them on a labelled head (a worker's face): ${f.remainingOnHeads}, ` +
    `of them with less than half of the face's box covered: ${f.remainingOnHeadsShowing}` +
    (f.crops > 0
      ? `; each of the ${f.crops} workers found cut out as a violation's crop: ${f.cropsOverHat} crops cover more than 10 % of the worker's own hard hat above the brim (the hat on the head the judge placed on them, issue 53), ${f.cropsHidingHat} more than a third of it ` +
        `(leaving out the pixels of another person's face in front of the hat, sure: ${f.cropsOverHatBesideFaces} and ${f.cropsHidingHatBesideFaces}), ` +
        `${f.cropsOverTorso} more than 10 % of their own vest or torso outside their head and chin (target none: ${f.cropsOverHat + f.cropsOverTorso === 0 ? 'met' : 'NOT met'}); ` +
        `faces still found on the crops where the photo's crop had one, on a labelled head: ${f.cropFacesLeft}`
      : '') +
    '\n'
  );
}
