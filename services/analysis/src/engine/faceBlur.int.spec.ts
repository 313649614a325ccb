import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { sharedDataDir } from '@baret/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeImage, detectFaces, warmUpDetector, type RawImage } from './detector.js';
import { FACE_SURE_SCORE, blurFaces, blurFacesRaw, centreIn, coveredIn, faceRegion, faceTiles, faceZones, headFaceRegion, sameFace, zoneTiles } from './faceBlur.js';
import { analyzePpeRaw, judgeFrameRaw } from './ppe.js';

type Box = [number, number, number, number];

const VEST_V4 = sharedDataDir('ppe-photos', 'safety-vest-v4');

/**
 * Validation photographs with one clear face each (measurement only, never trained on): a worker
 * in a hard hat (label 0), and a bare head (label 2). Over all the validation photos the analyzer
 * shown blurred faces does much worse (ADR 0024: a close-up whose face is blurred may lose its
 * worker altogether), which is why a job judges its frames before they are blurred.
 */
const PHOTOS = ['valid__02569_jpg', 'valid__img_22_jpg'];

async function photo(prefix: string): Promise<{ jpeg: Buffer; labels: string }> {
  const name = (await readdir(path.join(VEST_V4, 'images'))).find((f) => f.startsWith(prefix + '.rf.'));
  if (!name) throw new Error(`missing photo ${prefix}`);
  const jpeg = await readFile(path.join(VEST_V4, 'images', name));
  const labels = await readFile(path.join(VEST_V4, 'labels', name.replace(/\.jpg$/, '.txt')), 'utf8');
  return { jpeg, labels };
}

/** YOLO box lines (`class cx cy w h`, normalised). */
const yolo = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter((n) => n.length === 5)
    .map(([cls, cx, cy, w, h]) => ({ cls: cls!, cx: cx!, cy: cy!, w: w!, h: h! }));

async function raw(jpeg: Buffer): Promise<RawImage> {
  const { data, info } = await sharp(jpeg).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/** Mean absolute difference of two images (same size) inside a normalised YOLO box. */
function meanDiff(a: RawImage, b: RawImage, box: { cx: number; cy: number; w: number; h: number }): number {
  const x0 = Math.max(0, Math.floor((box.cx - box.w / 2) * a.width));
  const x1 = Math.min(a.width, Math.ceil((box.cx + box.w / 2) * a.width));
  const y0 = Math.max(0, Math.floor((box.cy - box.h / 2) * a.height));
  const y1 = Math.min(a.height, Math.ceil((box.cy + box.h / 2) * a.height));
  let sum = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) for (let c = 0; c < 3; c++) sum += Math.abs(a.data[(y * a.width + x) * 3 + c]! - b.data[(y * a.width + x) * 3 + c]!);
  return sum / Math.max(1, (x1 - x0) * (y1 - y0) * 3);
}

describe('the face blur (issue 30)', () => {
  beforeAll(async () => {
    await warmUpDetector();
  }, 120_000);

  it('keeps a face region from the brows down over the chin, and a head box’s lower part', () => {
    // BlazeFace's tight box (brows to mouth) → the region keeps its top, widens and goes down.
    expect(faceRegion({ box: [100, 100, 40, 40] }, 1000, 1000)).toEqual([94, 99.2, 52, 58.8]);
    // Clipped to the image.
    faceRegion({ box: [0, 980, 40, 40] }, 1000, 1000).forEach((v, i) => expect(v).toBeCloseTo([0, 979.2, 46, 20.8][i]!));
    // A head box (hard hat to chin): only below 45 % of its height.
    const [, y] = headFaceRegion({ box: [100, 100, 50, 60] }, 1000, 1000);
    expect(y).toBeCloseTo(127);
  });

  it('tiles a large frame so that small faces are large enough for BlazeFace, and leaves small images whole', () => {
    expect(faceTiles(416, 300)).toEqual([]);
    const tiles = faceTiles(1280, 720);
    expect(tiles.length).toBeGreaterThan(4);
    // Every pixel lies in some tile; no tile leaves the image.
    for (const [x, y] of [[0, 0], [1279, 719], [640, 360], [1279, 0], [0, 719]] as const) {
      expect(tiles.some(([tx, ty, tw, th]) => x >= tx && x < tx + tw && y >= ty && y < ty + th)).toBe(true);
    }
    for (const [tx, ty, tw, th] of tiles) expect(tx >= 0 && ty >= 0 && tx + tw <= 1280 && ty + th <= 720).toBe(true);
  });

  it("puts a worker's face zones at a head and the top of a person box, never the chest, and one tile around each (issue 39)", () => {
    // A standing worker 100 × 350 px with his head at the top, in a 1280 × 720 frame.
    const people = { persons: [[600, 200, 100, 350] as Box], heads: [[625, 200, 50, 60] as Box] };
    const zones = faceZones(people, 1280, 720);
    expect(zones).toHaveLength(2);
    const [head, person] = zones as [Box, Box];
    // Around the head, and the person's top down to a little more than his width (the chest starts below).
    head.forEach((v, i) => expect(v).toBeCloseTo([612.5, 185, 75, 90][i]!));
    expect(person[1] + person[3]).toBeCloseTo(200 + 120);
    // Clipped to the frame.
    const edge = faceZones({ persons: [], heads: [[-10, -10, 40, 40]] }, 1280, 720)[0]!;
    expect(edge[0]).toBe(0);
    expect(edge[1]).toBe(0);
    // One square tile per zone, at least 96 px, inside the frame; a zone centred in a tile already chosen of about its size adds none.
    const tiles = zoneTiles(zones, 1280, 720);
    expect(tiles).toHaveLength(2);
    for (const [tx, ty, tw, th] of tiles) {
      expect(tw).toBe(th);
      expect(tw).toBeGreaterThanOrEqual(96);
      expect(tx >= 0 && ty >= 0 && tx + tw <= 1280 && ty + th <= 720).toBe(true);
    }
    expect(zoneTiles([head, [head[0] + 5, head[1] + 5, head[2], head[3]]], 1280, 720)).toHaveLength(1);
    // A zone as large as a square image gets none (the whole image is searched anyway).
    expect(zoneTiles([[0, 0, 700, 700]], 720, 720)).toEqual([]);
    // A far-off worker's small head gets a tile of the smallest side, where the face is large enough.
    expect(zoneTiles([[100, 100, 12, 14]], 1280, 720)[0]![2]).toBe(96);
  });

  it.each(PHOTOS)('leaves no face BlazeFace finds at its default score on %s, the hard hat untouched and judged the same', async (name) => {
    const { jpeg, labels } = await photo(name);
    const before = await detectFaces(jpeg);
    expect(before.faces.length).toBeGreaterThan(0);
    const blurred = await blurFaces(jpeg, { quality: 90 });
    expect(blurred.regions.length).toBeGreaterThan(0);
    expect(blurred.remaining).toBe(0);
    // The JPEG handed back (what is stored), decoded again, has no face at BlazeFace's default score.
    expect((await detectFaces(blurred.jpeg)).faces).toEqual([]);

    const a = await raw(jpeg);
    const b = await raw(blurred.jpeg);
    const heads = yolo(labels).filter((o) => o.cls === 0 || o.cls === 2);
    expect(heads.length).toBe(1);
    // The face itself changed a lot (covered by an opaque patch); a hard hat's upper half hardly (JPEG re-encoding only).
    const head = heads[0]!;
    const lower = { cx: head.cx, cy: head.cy + head.h / 4, w: head.w * 0.5, h: head.h / 2 };
    expect(meanDiff(a, b, lower)).toBeGreaterThan(8);
    if (head.cls === 0) expect(meanDiff(a, b, { cx: head.cx, cy: head.cy - head.h / 3, w: head.w, h: head.h / 3 })).toBeLessThan(4);

    // The photo's hard-hat verdicts (the image-level reading of the eval), with and without blur.
    // A worker whose head the analyzer cannot judge ('unknown') is no verdict: with the face covered by a
    // flat patch the bare-headed photo also yields one such worker, the photo's reading stays the same.
    const verdicts = async (img: RawImage) => [...new Set((await analyzePpeRaw(img)).map((p) => p.hardHat))].filter((v) => v !== 'unknown').sort();
    expect(await verdicts(a)).toEqual([head.cls === 0 ? 'seen' : 'bare']);
    expect(await verdicts(b)).toEqual(await verdicts(a));
  }, 120_000);

  it('answers an image without faces unchanged', async () => {
    const grey = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 120, g: 130, b: 140 } } }).jpeg().toBuffer();
    const out = await blurFaces(grey);
    expect(out.regions).toEqual([]);
    expect(out.jpeg).toBe(grey);
    expect((await decodeImage(out.jpeg)).width).toBe(320);
  }, 60_000);

  it.each(PHOTOS)('with the people the judge found (issue 39), %s: one patch per face, on the workers only, and no face left', async (prefix) => {
    const { jpeg } = await photo(prefix);
    const persons = await analyzePpeRaw(await raw(jpeg));
    expect(persons.length).toBeGreaterThan(0);
    const people = { persons: persons.map((p) => p.box), heads: persons.flatMap((p) => (p.head ? [p.head] : [])) };
    const covered = await blurFaces(jpeg, { people });
    const every = await blurFaces(jpeg);
    // One clear face: one patch (a later pass over the same face widens it instead of adding one);
    // a head with no face found is its own (the PPE model of issue 37 finds a second worker cut by
    // the left edge of valid__img_22).
    expect(covered.regions.filter((r) => r.source === 'face')).toHaveLength(1);
    expect(covered.regions.length).toBeLessThanOrEqual(every.regions.length);
    // On a worker's face zone (a head, the top of a person box), or a face BlazeFace is sure of.
    const { width, height } = await decodeImage(jpeg, Number.MAX_SAFE_INTEGER);
    const zones = faceZones(people, width, height);
    for (const r of covered.regions) expect(centreIn(r.box, zones) || r.score >= FACE_SURE_SCORE, `patch ${r.box.join(',')} on a worker`).toBe(true);
    expect(covered.remaining).toBe(0);
    const before = (await detectFaces(jpeg)).faces.map((f) => f.box);
    expect((await detectFaces(covered.jpeg)).faces.filter((f) => sameFace(f.box, before))).toEqual([]);
  }, 300_000);

  it.each(PHOTOS)('takes the judge’s search of the whole frame for its own (issue 39), %s: the same patches, no face left', async (prefix) => {
    const { jpeg } = await photo(prefix);
    const judged = await judgeFrameRaw(await raw(jpeg));
    expect(judged.faces.length).toBeGreaterThan(0);
    const people = { persons: judged.persons.map((p) => p.box), heads: judged.persons.flatMap((p) => (p.head ? [p.head] : [])) };
    const own = await blurFaces(jpeg, { people });
    const reused = await blurFaces(jpeg, { people, faces: judged.faces });
    expect(reused.regions).toEqual(own.regions);
    expect(reused.found).toEqual(own.found);
    expect(reused.remaining).toBe(0);
    // The faces given are the ones taken: told of none, it covers none of them (the zones' tiles, searched here, find none).
    const told = await blurFaces(jpeg, { people: { persons: [], heads: [] }, faces: [] });
    expect(told.regions).toEqual([]);
  }, 300_000);

  it('reports every pixel it covers (the eval measures a vest box covered with coveredIn)', async () => {
    const { jpeg } = await photo(PHOTOS[1]!);
    const before = await raw(jpeg);
    const persons = await analyzePpeRaw(before);
    const img: RawImage = { ...before, data: before.data.slice() };
    const out = await blurFacesRaw(img, { people: { persons: persons.map((p) => p.box), heads: persons.flatMap((p) => (p.head ? [p.head] : [])) }, thumbnail: true });
    expect(out.filled.length).toBeGreaterThan(0);
    // Every changed pixel lies in a patch drawn, and the patches' pixels (overlaps once) are at least the changed ones.
    let changed = 0;
    for (let i = 0; i < img.width * img.height; i++) {
      if (img.data[i * 3] === before.data[i * 3] && img.data[i * 3 + 1] === before.data[i * 3 + 1] && img.data[i * 3 + 2] === before.data[i * 3 + 2]) continue;
      changed++;
      const x = i % img.width;
      const y = Math.floor(i / img.width);
      expect(coveredIn(out.filled, [x, y, 1, 1]), `pixel ${x},${y} changed outside every patch`).toBe(1);
    }
    const whole: Box = [0, 0, img.width, img.height];
    expect(coveredIn(out.filled, whole)).toBeGreaterThanOrEqual(changed);
    expect(changed).toBeGreaterThan(0.9 * coveredIn(out.filled, whole));
    // Overlaps counted once, and the pixels of an excepted box left out.
    expect(coveredIn([[0, 0, 10, 10], [5, 5, 10, 10]], [0, 0, 100, 100])).toBe(175);
    expect(coveredIn([[0, 0, 10, 10], [5, 5, 10, 10]], [0, 0, 100, 100], [[0, 0, 10, 5]])).toBe(125);
  }, 300_000);

  it('with nobody found, covers only the faces BlazeFace is sure of', async () => {
    const { jpeg } = await photo(PHOTOS[0]!);
    const out = await blurFaces(jpeg, { people: { persons: [], heads: [] } });
    for (const r of out.regions) expect(r.source === 'face' && r.score >= FACE_SURE_SCORE).toBe(true);
    // No face it is sure of left where the photo had one (what a cover makes look like a face elsewhere is no one's).
    const before = (await detectFaces(jpeg)).faces.filter((f) => f.score >= FACE_SURE_SCORE).map((f) => f.box);
    expect((await detectFaces(out.jpeg)).faces.filter((f) => sameFace(f.box, before))).toEqual([]);
    expect(out.remaining).toBe(0);
  }, 300_000);
});
