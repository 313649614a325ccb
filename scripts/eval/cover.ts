/**
 * Faces covered, not the evidence (issue 39; `npm run eval -- --blur`): each labelled photo goes
 * the way a job's frame goes — a JPEG judged by the offline analyzer first, then its faces covered
 * on the workers the judge found (`coverFaces`) — and the patches are compared with the labels:
 * patches per photo against labelled heads (target: at most the heads + 10 %), and patches that
 * cover more than 10 % of a labelled vest or torso box (target: none). The faces test
 * (tests/faces.e2e) proves, apart, that no face is left.
 */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { detectFaces, type RawImage } from '../../services/analysis/src/engine/detector.js';
import { blurFaces, centreIn, coveredIn, sameFace, type FaceBlurResult } from '../../services/analysis/src/engine/faceBlur.js';
import { judgeFrameRaw } from '../../services/analysis/src/engine/ppe.js';
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
  /** The same, counting only the vest or torso box's pixels outside every labelled head (many vest boxes are drawn up over the chin). */
  patchesOverTorsoOutsideHeads: number;
  /** The largest share of a labelled vest or torso box one patch covers. */
  worstTorsoShare: number;
  /** Faces BlazeFace still finds at its default score on the covered photos where the photo had one. */
  remaining: number;
  /** Of those, the faces on a labelled head (a worker's face left: the privacy figure; the rest are BlazeFace's faces in trees, walls and shirts). */
  remainingOnHeads: number;
}

const area = (b: Box): number => Math.max(0, b[2]) * Math.max(0, b[3]);

/** How faces are covered: only the faces of the people found (what a job does, FaceBlurOptions.people), or every face found (before issue 39). */
export type CoverRule = 'every face' | 'people';

/** A job's cover of one frame: judged first, then faces covered on the judge's workers (or, `every face`, all faces found). */
export async function coverAsJob(jpeg: Buffer, rule: CoverRule = 'people'): Promise<FaceBlurResult> {
  if (rule === 'every face') return blurFaces(jpeg, { quality: 90 });
  const { data, info } = await sharp(jpeg).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const frame: RawImage = { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  // The judge's search of the frame gives the cover its whole-image faces, as in a job (pipeline.ts cover).
  const { persons, faces } = await judgeFrameRaw(frame);
  return blurFaces(jpeg, { quality: 90, people: { persons: persons.map((p) => p.box), heads: persons.flatMap((p) => (p.head ? [p.head] : [])) }, faces });
}

export async function measureCover(photos: ReadonlyArray<{ image: string; labelText: string }>, classes: ClassIds, rule: CoverRule = 'people', onProgress?: (done: number, total: number) => void): Promise<CoverFigures> {
  const headClasses = new Set([classes.helmet, ...(classes.bareHead ?? []), classes.otherHeadgear].filter((c): c is number => c !== undefined));
  const torsoClasses = new Set([classes.vest, classes.noVest].filter((c): c is number => c !== undefined));
  const f: CoverFigures = { photos: 0, heads: 0, patches: 0, torsos: 0, patchesOverTorso: 0, patchesOverTorsoOutsideHeads: 0, worstTorsoShare: 0, remaining: 0, remainingOnHeads: 0 };
  for (const [i, photo] of photos.entries()) {
    const jpeg = await sharp(await readFile(photo.image)).rotate().jpeg({ quality: 90 }).toBuffer();
    const covered = await coverAsJob(jpeg, rule);
    const { width, height } = covered;
    const labels = parseYoloLabels(photo.labelText).map((o) => ({ cls: o.cls, box: [o.box[0] * width, o.box[1] * height, o.box[2] * width, o.box[3] * height] as Box }));
    const torsos = labels.filter((l) => torsoClasses.has(l.cls)).map((l) => l.box);
    f.photos++;
    const labelledHeads = labels.filter((l) => headClasses.has(l.cls)).map((l) => l.box);
    f.heads += labelledHeads.length;
    f.torsos += torsos.length;
    f.patches += covered.regions.length;
    for (const r of covered.regions) {
      // The pixels of a vest its patches cover (a region merges the patches drawn around one face).
      const mine = covered.filled.filter((p) => centreIn(p, [r.box]));
      const share = Math.max(0, ...torsos.map((t) => coveredIn(mine, t) / Math.max(1, area(t))));
      f.worstTorsoShare = Math.max(f.worstTorsoShare, share);
      if (share > 0.1) f.patchesOverTorso++;
      if (torsos.some((t) => coveredIn(mine, t, labelledHeads) / Math.max(1, area(t)) > 0.1)) f.patchesOverTorsoOutsideHeads++;
    }
    const before = (await detectFaces(jpeg)).faces.map((x) => x.box);
    const left = (await detectFaces(covered.jpeg)).faces.filter((x) => sameFace(x.box, before));
    f.remaining += left.length;
    // A labelled head with a tenth of margin each side (hand-drawn boxes are tight).
    const heads = labelledHeads.map(([x, y, w, h]): Box => [x - 0.1 * w, y - 0.1 * h, 1.2 * w, 1.2 * h]);
    f.remainingOnHeads += left.filter((x) => sameFace(x.box, heads)).length;
    onProgress?.(i + 1, photos.length);
  }
  return f;
}

export function formatCover(f: CoverFigures, rule: CoverRule = 'people'): string {
  const perPhoto = (n: number) => (n / Math.max(1, f.photos)).toFixed(2);
  const how = rule === 'people' ? 'faces covered as a job covers them (judged first, then the faces of the workers found)' : 'every face found covered (before issue 39)';
  return (
    `${how}: ${f.patches} patches on ${f.photos} photos ` +
    `(${perPhoto(f.patches)} per photo) against ${f.heads} labelled heads (${perPhoto(f.heads)} per photo; target ≤ heads + 10 %: ${f.patches <= f.heads * 1.1 ? 'met' : 'NOT met'}); ` +
    `${f.patchesOverTorso} patches cover more than 10 % of one of ${f.torsos} labelled vest or torso boxes (the most: ${(f.worstTorsoShare * 100).toFixed(0)} %; target none: ${f.patchesOverTorso === 0 ? 'met' : 'NOT met'}), ` +
    `${f.patchesOverTorsoOutsideHeads} counting only the box's pixels outside the labelled heads; ` +
    `faces still found at BlazeFace's default score where the photo had one: ${f.remaining}, of them on a labelled head (a worker's face): ${f.remainingOnHeads}\n`
  );
}
