/**
 * Faces blurred out of every image Baret stores (issue 30, ADR 0024): evidence frames, composites
 * and violation crops, and so the PDF pages made of them.
 *
 * Faces are found by BlazeFace, the face detector shipped in `@vladmandic/human` (detector.ts),
 * on the whole image and on overlapping tiles of it (BlazeFace sees its input at 256 × 256, so a
 * face of a worker a few metres away in a 1280-pixel frame is found only in a tile), at a score
 * below its own default. Optionally the head detector's heads with no face found in them get the
 * lower part of their box blurred too (a face turned away or too blurry for BlazeFace).
 *
 * Each region covers the face from the brow down to below the chin and a little beyond the cheeks
 * — not the head above the brow, so a hard hat stays as sharp as it was, nor the torso, so a vest
 * does — and is covered by an opaque patch of one colour, the region's mean ({@link fill}): no
 * feature of the face survives, and none comes back when the image is shown small (pixelation's
 * blocks, downsampled on a PDF page, made a smooth face-like blob the detector found again). The
 * image is then searched again and whatever the detector still finds is covered in turn, up to
 * {@link MAX_PASSES} times, so that the image handed back has no face the detector finds at its
 * default score.
 *
 * With the workers the judge found (issue 39), a patch is put on the face of the judged head it
 * belongs to (issue 51, {@link facePatch}): below the brow — the upper part of a head box is the
 * headwear, the hard hat a verdict is about —, down to a little below the chin and no wider than
 * the head allows, never over the torso; the patches of one head become one, never a box over a
 * neighbour; a face found again over a patch tones it again rather than growing it over the hat;
 * and a violation's crop searches no face on its worker's torso.
 */
import sharp from 'sharp';
import { FACE_DEFAULT_MIN_SCORE, detectFacesRaw, overlapOfSmaller, type DetectedFace, type RawImage } from './detector.js';
import { detectHeads, type DetectedHead } from './headDetector.js';

/** The score at which a face is blurred: below BlazeFace's default, so what it finds at its default is blurred with a margin. */
export const FACE_BLUR_MIN_SCORE = 0.15;
/** Blur passes at most: search, blur, search again what the blur left (or made). */
export const MAX_PASSES = 3;

type Box = [number, number, number, number];

/** A region to blur, in pixels of the image, and why. */
export interface BlurRegion {
  box: Box;
  source: 'face' | 'head';
  score: number;
  /** The judged head the patch was put on ({@link headOf}, issue 51), when it lies in one. */
  head?: Box;
}

/** Options of {@link blurFacesRaw}. */
export interface FaceBlurOptions {
  /** Blur the face part of heads the head detector finds where no face was found (default true). */
  heads?: boolean;
  /** Score at which a face is blurred, default {@link FACE_BLUR_MIN_SCORE}. */
  minScore?: number;
  /**
   * The workers the judge found (issue 39), in pixels of the image. Given, only the faces of people
   * are covered — a face around a judged head or at the top of a person box with no head judged
   * (issue 53: beside a judged head, BlazeFace's unsure faces are grass and collars), one found on a
   * tile of their face zones ({@link faceZones}), or one BlazeFace is sure of
   * ({@link FACE_SURE_SCORE}) wherever it is — one patch per face;
   * the image's tiles are the zones' ({@link zoneTiles}) and a head with no face found is one of
   * theirs (the head detector does not run again). The trees, walls, chests and vests where BlazeFace
   * sees faces at low scores stay as they are. Absent, every face found is covered.
   */
  people?: People;
  /**
   * The whole image's faces as BlazeFace already found them at its default score (the judge's
   * search of the frame, issue 39), in its pixels: the whole image is not searched again (its tiles
   * are, and so is the JPEG handed back when anything was covered). Not taken when `minScore` is
   * below that score.
   */
  faces?: ReadonlyArray<{ box: Box; score: number }>;
  /** Blur passes at most (default {@link MAX_PASSES}): search, blur, search again what the blur left. */
  passes?: number;
  /** Search the image’s tiles too (default true). */
  tiles?: boolean;
  /**
   * The image is shown as a thumbnail (a violation's crop: 80 points on a PDF page, a head a few
   * pixels high to a detector that sees the whole page): it is searched at those sizes too
   * ({@link THUMBNAIL_SIDES}), and a patch where a face is still found there is toned again
   * ({@link RETONES}) — the same area, another colour — until none is (default false).
   */
  thumbnail?: boolean;
  /**
   * Patches the image already has, in its pixels (a crop cut from a covered frame: the frame's
   * patches): covered again as regions of this image, so that {@link thumbnail} can tone them too.
   */
  patches?: Box[];
  /**
   * The worker a violation's crop shows (issue 51), their person box in its pixels, with `people`: a
   * face found wholly on their torso — the box below the chin of the judged head on it
   * ({@link torsoZones}) — and in no head's zone is not covered, however sure BlazeFace is of it.
   * The crop, enlarged, is searched for faces too small to find in the frame; on the worker's own
   * vest or shirt it finds their pattern, and a patch there would hide the vest the violation is
   * about. (A face of someone else in front of the worker was searched in the frame, and its patch
   * comes with `patches`.)
   */
  worker?: Box;
}

/**
 * Long sides, in pixels of BlazeFace's 256-pixel input, at which a thumbnail is searched: an
 * 80-point crop on an A4 page seen whole (842 points → 256) is 24 pixels high.
 */
export const THUMBNAIL_SIDES = [20, 24, 30, 40] as const;

/**
 * Tones a patch is given in turn when a face is still found over it at thumbnail size: darker,
 * lighter, grey, near-black. A patch of its surroundings' mean can still leave the head's outline
 * (a hat over a patch of the background's colour), which BlazeFace at that size takes for a face.
 */
export const RETONES: ReadonlyArray<(colour: number[]) => number[]> = [
  (c) => c.map((v) => v * 0.55),
  (c) => c.map((v) => Math.min(255, v * 1.5 + 30)),
  () => [128, 128, 128],
  () => [40, 40, 40],
];

/**
 * A face BlazeFace is sure of (issue 39): covered wherever it is, in a worker's face zone or not —
 * a face of someone the judge did not find as a worker. Below it, outside the zones, BlazeFace's finds
 * are trees, walls and shirts (ADR 0024).
 */
export const FACE_SURE_SCORE = 0.5;

/** The workers of an image: their person boxes and head boxes, in its pixels. */
export interface People {
  persons: Box[];
  heads: Box[];
}

/**
 * Where the face of one of `people` can be (issue 39): around each head box, and the top of each
 * person box — its upper part down to a little more than its width (a standing worker's head and
 * neck, a close-up's face), never the chest below — clipped to the image. A person with a judged
 * head on it (its centre in the box) has its top end at that head's chin ({@link HEAD_CHIN}; the
 * lowest, with several): below is the torso, all the more for a crouching or bending worker, whose
 * box is about as wide as it is tall (issue 51).
 */
export function faceZones(people: People, width: number, height: number): Box[] {
  const zones: Box[] = people.heads.map(([x, y, w, h]) => [x - 0.25 * w, y - 0.25 * h, 1.5 * w, 1.5 * h]);
  for (const person of people.persons) {
    const [x, y, w, h] = person;
    const bottom = Math.min(y + Math.min(0.55 * h, 1.2 * w), chinOf(person, people.heads) ?? Infinity);
    zones.push([x - 0.1 * w, y - 0.1 * h, 1.2 * w, bottom - y + 0.1 * h]);
  }
  return zones.flatMap((z): Box[] => {
    const x0 = clamp(z[0], 0, width);
    const y0 = clamp(z[1], 0, height);
    const x1 = clamp(z[0] + z[2], 0, width);
    const y1 = clamp(z[1] + z[3], 0, height);
    return x1 - x0 >= 1 && y1 - y0 >= 1 ? [[x0, y0, x1 - x0, y1 - y0]] : [];
  });
}

/** Where a person's face ends: the chin ({@link HEAD_CHIN}) of the judged head on them (its centre in their box; the lowest, with several), if any. */
function chinOf(person: Box, heads: readonly Box[]): number | undefined {
  const chins = heads.filter((head) => centreIn(head, [person])).map((head) => head[1] + HEAD_CHIN * head[3]);
  return chins.length > 0 ? Math.max(...chins) : undefined;
}

/**
 * A person's own judged head among those on them (their centre in the person box): the one whose top
 * middle is nearest the box's top middle. In a crowd a worker's box holds their neighbours' heads
 * too, lower (further back, or shorter) or to a side (issue 53).
 */
export function ownHeadOf(person: Box, heads: readonly Box[]): Box | undefined {
  const [px, py, pw] = person;
  const away = ([x, y, w]: Box) => Math.hypot(x + w / 2 - (px + pw / 2), y - py);
  return heads.filter((head) => centreIn(head, [person])).sort((a, b) => away(a) - away(b))[0];
}

/**
 * The torsos of `people` (issue 51): each person box below the chin ({@link HEAD_CHIN}) of their own
 * judged head ({@link ownHeadOf}; issue 53: not the lowest head in the box — a neighbour's lower
 * head put the torso's top below the worker's chest, and the crop's face search covered the vest
 * above it); none for a person with no head judged.
 */
export function torsoZones(people: People): Box[] {
  return people.persons.flatMap((person): Box[] => {
    const [x, y, w, h] = person;
    const own = ownHeadOf(person, people.heads);
    const top = own && own[1] + HEAD_CHIN * own[3];
    return top !== undefined && top < y + h ? [[x, top, w, y + h - top]] : [];
  });
}

/** Side of a zone's tile at least (pixels): a face in it is large enough for BlazeFace's 256-pixel input, and no smaller crop is enlarged into texture. */
export const ZONE_TILE_MIN_SIDE = 96;

/**
 * One square tile per face zone (issue 39), in place of the whole image's tiles: a worker's face,
 * small in the whole image, fills a good part of its zone's tile. A tile close to the image's own
 * size is left out (the whole image is searched anyway), and so is one centred in a tile already
 * chosen of about its size (a head zone inside its person's).
 */
export function zoneTiles(zones: readonly Box[], width: number, height: number): Box[] {
  const tiles: Box[] = [];
  for (const [x, y, w, h] of zones) {
    const side = Math.min(Math.max(w, h, ZONE_TILE_MIN_SIDE), width, height);
    if (side * 1.25 >= Math.max(width, height)) continue;
    const tx = clamp(x + w / 2 - side / 2, 0, width - side);
    const ty = clamp(y + h / 2 - side / 2, 0, height - side);
    const tile: Box = [tx, ty, side, side];
    if (tiles.some((t) => centreIn(tile, [t]) && Math.max(t[2], side) / Math.min(t[2], side) < 1.6)) continue;
    tiles.push(tile);
  }
  return tiles;
}

/** Whether `box`'s centre lies inside one of `boxes`. */
export const centreIn = (box: Box, boxes: readonly Box[]): boolean => {
  const cx = box[0] + box[2] / 2;
  const cy = box[1] + box[3] / 2;
  return boxes.some((b) => cx >= b[0] && cx <= b[0] + b[2] && cy >= b[1] && cy <= b[1] + b[3]);
};

/** What a blur did: the regions blurred and what the detector still finds at its default score afterwards. */
export interface FaceBlurReport {
  regions: BlurRegion[];
  passes: number;
  /** Faces BlazeFace still finds at its default score where it found a face before the blur (the acceptance of issue 30: none). */
  remaining: number;
  /** What BlazeFace finds at its default score elsewhere on the blurred image: its false faces on shirts, walls and blurred skin (ADR 0024). */
  falseFaces: number;
  /** The faces found before blurring (boxes). */
  found: Box[];
  /** Every patch drawn, in pixels of the image (what {@link coveredIn} measures). */
  filled: Box[];
}

/** Whether `face` is where one of `before` was: its centre inside that box, or that box's centre inside it. */
export function sameFace(face: Box, before: readonly Box[]): boolean {
  return before.some((b) => centreIn(face, [b]) || centreIn(b, [face]));
}

export const centreOf = (b: Box): [number, number] => [b[0] + b[2] / 2, b[1] + b[3] / 2];

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/**
 * The part of the image a face found by BlazeFace is blurred over. BlazeFace's tight box runs
 * from the brows to the mouth (measured on the validation photos, ADR 0024): the region keeps
 * its top (the brim of a hard hat sits just above), widens it by 15 % on each side and takes it
 * 30 % further down, over the chin (issue 51: the chins of the labelled heads on safety-vest-v4 lie
 * 16 % of the box below it for a hard hat, 25 % for a bare head — medians —, 24 % and 34 % for three
 * in four; 45 % covered the collar and the top of the vest).
 */
export function faceRegion(face: Pick<DetectedFace, 'box'>, width: number, height: number): Box {
  const [x, y, w, h] = face.box;
  const x0 = clamp(x - 0.15 * w, 0, width);
  const y0 = clamp(y - 0.02 * h, 0, height);
  const x1 = clamp(x + 1.15 * w, 0, width);
  const y1 = clamp(y + 1.3 * h, 0, height);
  return [x0, y0, x1 - x0, y1 - y0];
}

/**
 * The face part of a head box (the head detector's box runs from the top of the hard hat or hair
 * to the chin): its lower 55 %, without a sixth on each side, down a little below the chin.
 */
export function headFaceRegion(head: Pick<DetectedHead, 'box'>, width: number, height: number): Box {
  const [x, y, w, h] = head.box;
  const x0 = clamp(x + 0.12 * w, 0, width);
  const y0 = clamp(y + 0.45 * h, 0, height);
  const x1 = clamp(x + 0.88 * w, 0, width);
  const y1 = clamp(y + 1.08 * h, 0, height);
  return [x0, y0, x1 - x0, y1 - y0];
}

/**
 * Square tiles over the image, overlapping by a quarter, each 60 % of its short side (at least
 * 160 px): the whole image's smaller faces are large enough in a tile for BlazeFace's 256-pixel
 * input. None for an image whose short side is under 320 px (the whole image is enough).
 */
export function faceTiles(width: number, height: number): Box[] {
  const short = Math.min(width, height);
  if (short < 320) return [];
  const side = Math.max(160, Math.round(short * 0.6));
  const stride = Math.round(side * 0.75);
  const starts = (len: number): number[] => {
    const out: number[] = [];
    for (let p = 0; ; p += stride) {
      if (p + side >= len) {
        out.push(Math.max(0, len - side));
        break;
      }
      out.push(p);
    }
    return [...new Set(out)];
  };
  return starts(height).flatMap((y) => starts(width).map((x) => [x, y, Math.min(side, width - x), Math.min(side, height - y)] as Box));
}

function cropRaw(img: RawImage, [x, y, w, h]: Box): RawImage {
  const x0 = Math.floor(x);
  const y0 = Math.floor(y);
  const width = Math.min(img.width - x0, Math.ceil(w));
  const height = Math.min(img.height - y0, Math.ceil(h));
  const data = new Uint8Array(width * height * 3);
  for (let r = 0; r < height; r++) {
    const start = ((y0 + r) * img.width + x0) * 3;
    data.set(img.data.subarray(start, start + width * 3), r * width * 3);
  }
  return { data, width, height };
}

/** A face {@link findFaces} found, and whether on a tile (an enlarged part of the image, where its score says less: issue 51). */
export type SearchedFace = DetectedFace & { tile?: boolean };

/** Score a face found on a tile needs: tiles enlarge textures into false faces, a real small face scores high (ADR 0024). */
export const TILE_MIN_SCORE = 0.5;

/**
 * Faces on the whole image (at `minScore`) and on its tiles (at {@link TILE_MIN_SCORE}), in pixels
 * of the image; the same face found on the image and on a tile is kept once. With `people`, see
 * {@link FaceBlurOptions.people}; with `worker` too, {@link FaceBlurOptions.worker}.
 */
export async function findFaces(img: RawImage, minScore = FACE_BLUR_MIN_SCORE, tiles = true, people?: People, known?: FaceBlurOptions['faces'], worker?: Box): Promise<SearchedFace[]> {
  const zones = people && faceZones(people, img.width, img.height);
  // On the torso of the worker a violation's crop shows — centred below their own judged head's chin,
  // starting below that head — and in no head's zone: no face of the workers (issue 51), however sure.
  const own = people && worker ? ownHeadOf(worker, people.heads) : undefined;
  const torsos = people && worker ? torsoZones({ persons: [worker], heads: people.heads }) : [];
  // Each judged head's zone, once (a zone wholly outside the image is none).
  const zoneOf = new Map((people?.heads ?? []).map((h) => [h, faceZones({ persons: [], heads: [h] }, img.width, img.height)]));
  const headZones = [...zoneOf.values()].flat();
  const onTorso = (box: Box) => !!own && box[1] >= own[1] + 0.9 * own[3] && centreIn(box, torsos) && !centreIn(box, headZones);
  const kept = (box: Box) => !onTorso(box);
  const whole =
    known && minScore >= FACE_DEFAULT_MIN_SCORE
      ? known.filter((f) => f.score >= minScore).map((f): DetectedFace => ({ box: [...f.box], score: f.score, landmarks: [] }))
      : await detectFacesRaw(img, { minScore });
  // A face BlazeFace is not sure of is a worker's only in a judged head's zone, or at the top of a
  // person with no head judged (issue 53): beside a judged head, and on a violation's enlarged crop
  // anywhere else, what it finds is grass, a jacket's pattern or a patch with the hat above it.
  const headless = people ? faceZones({ persons: people.persons.filter((p) => !ownHeadOf(p, people.heads)), heads: [] }, img.width, img.height) : [];
  // On a violation's crop, one that ends above the worker's own brow, in their head's zone and no
  // other's, is the pattern of their hard hat (issue 53: a helmet's print, above a head box placed
  // at its middle, was covered as a face): a face is below the brow.
  const onOwnHat = (box: Box) => !!own && box[1] + box[3] <= own[1] + HEAD_BROW * own[3] && [...zoneOf].every(([h, zone]) => centreIn(box, zone) === (h === own));
  const inZone = (box: Box) => !onOwnHat(box) && (centreIn(box, headZones) || centreIn(box, headless));
  const found: SearchedFace[] = whole.filter((f) => kept(f.box) && (!zones || f.score >= FACE_SURE_SCORE || inZone(f.box)));
  if (!tiles) return found;
  // With the people known, the tiles are their face zones' (what a tile finds elsewhere is texture).
  // A zone whose face the whole image already showed, and BlazeFace is sure of, needs no tile of its own.
  const open = zones?.filter((z) => !found.some((f) => f.score >= FACE_SURE_SCORE && centreIn(f.box, [z])));
  for (const tile of open ? zoneTiles(open, img.width, img.height) : faceTiles(img.width, img.height)) {
    for (const f of await detectFacesRaw(cropRaw(img, tile), { minScore: Math.max(minScore, TILE_MIN_SCORE) })) {
      const box: Box = [f.box[0] + Math.floor(tile[0]), f.box[1] + Math.floor(tile[1]), f.box[2], f.box[3]];
      if (zones && (!centreIn(box, zones) || !kept(box))) continue;
      if (found.some((g) => overlapOfSmaller(g.box, box) > 0.5)) continue;
      found.push({ box, score: f.score, landmarks: f.landmarks.map(([px, py]) => [px + Math.floor(tile[0]), py + Math.floor(tile[1])]), tile: true });
    }
  }
  return found;
}

/**
 * Covers `box` of `img` in place with one opaque colour (ADR 0024): nothing of the face is left to
 * downsample into a face-like blob at page scale, as pixelation left. The colour is the mean of the
 * surroundings — a ring around the box, a quarter of its long side wide — not of the face (or that
 * colour toned by `tone`): a patch
 * of the face's own (skin) colour kept the shape of a face, which BlazeFace found again on a PDF page
 * where an 80-point crop shows a head a few pixels high (issue 39, tests/faces.e2e); a patch of the
 * surroundings' colour blends the head into what is around it. No pixel of the face is used.
 */
export function fill(img: RawImage, box: Box, tone?: (colour: number[]) => number[]): void {
  const x0 = Math.max(0, Math.floor(box[0]));
  const y0 = Math.max(0, Math.floor(box[1]));
  const x1 = Math.min(img.width, Math.ceil(box[0] + box[2]));
  const y1 = Math.min(img.height, Math.ceil(box[1] + box[3]));
  if (x1 <= x0 || y1 <= y0) return;
  const d = img.data;
  const m = Math.max(2, Math.round(0.25 * Math.max(x1 - x0, y1 - y0)));
  const mean = (inRing: boolean): number[] | undefined => {
    const sum = [0, 0, 0];
    let n = 0;
    for (let y = Math.max(0, y0 - m); y < Math.min(img.height, y1 + m); y++) {
      for (let x = Math.max(0, x0 - m); x < Math.min(img.width, x1 + m); x++) {
        if (x >= x0 && x < x1 && y >= y0 && y < y1 ? inRing : !inRing) continue;
        for (let c = 0; c < 3; c++) sum[c]! += d[(y * img.width + x) * 3 + c]!;
        n++;
      }
    }
    return n > 0 ? sum.map((v) => v / n) : undefined;
  };
  // The box's own mean only when it leaves nothing around it (the whole image).
  const around = mean(true) ?? mean(false)!;
  const colour = tone ? tone(around) : around;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) for (let c = 0; c < 3; c++) d[(y * img.width + x) * 3 + c] = colour[c]!;
}

/**
 * How many pixels of `box` the patches `patches` cover (overlapping patches counted once), leaving
 * out those inside any of `except` (the eval: a labelled vest box drawn up over the chin of its
 * worker's labelled head).
 */
export function coveredIn(patches: readonly Box[], box: Box, except: readonly Box[] = []): number {
  const x0 = Math.floor(box[0]);
  const y0 = Math.floor(box[1]);
  const w = Math.max(0, Math.ceil(box[0] + box[2]) - x0);
  const h = Math.max(0, Math.ceil(box[1] + box[3]) - y0);
  const mask = new Uint8Array(w * h);
  const mark = (b: Box, value: number): void => {
    const ax = Math.max(0, Math.floor(b[0]) - x0);
    const bx = Math.min(w, Math.ceil(b[0] + b[2]) - x0);
    for (let y = Math.max(0, Math.floor(b[1]) - y0); y < Math.min(h, Math.ceil(b[1] + b[3]) - y0); y++) if (bx > ax) mask.fill(value, y * w + ax, y * w + bx);
  };
  for (const p of patches) mark(p, 1);
  for (const e of except) mark(e, 0);
  return mask.reduce((n, v) => n + v, 0);
}

/**
 * Blurs the faces of a decoded image in place (see the module comment) and reports what it did.
 * After the last pass the image is searched once more at BlazeFace's default score: `remaining`
 * counts the faces still found where faces were found before the blur, `falseFaces` the rest.
 */
export async function blurFacesRaw(img: RawImage, opts: FaceBlurOptions = {}): Promise<FaceBlurReport> {
  // With the people known, their faces are searched at BlazeFace's own score (the one the encoded
  // JPEG is checked at): below it, in a worker's face zone, it finds mostly the edge of a vest or a
  // collar (ADR 0024, addendum of issue 39).
  const minScore = opts.minScore ?? (opts.people ? FACE_DEFAULT_MIN_SCORE : FACE_BLUR_MIN_SCORE);
  const people = opts.people;
  const regions: BlurRegion[] = [];
  const filled: Box[] = [];
  const cover = patcher(img, filled);
  for (const patch of opts.patches ?? []) {
    const x0 = clamp(patch[0], 0, img.width);
    const y0 = clamp(patch[1], 0, img.height);
    const box: Box = [x0, y0, clamp(patch[0] + patch[2], 0, img.width) - x0, clamp(patch[1] + patch[3], 0, img.height) - y0];
    if (box[2] < 1 || box[3] < 1) continue;
    cover(box);
    regions.push({ box, source: 'face', score: 1 });
  }
  let faces = await findFaces(img, minScore, opts.tiles ?? true, people, opts.faces, opts.worker);
  const found = faces.map((f) => f.box);
  let heads: Array<Pick<DetectedHead, 'box' | 'score'>> = [];
  if (opts.heads ?? true) {
    // With the people known, their heads are the judge's: the head detector does not run again.
    const candidates = people ? people.heads.map((box) => ({ box, score: 1 })) : await detectHeads(img);
    // A head with a face found over it, or over its face part (issue 51: a head box that is the hat alone, the face below it), gets no patch of its own.
    const facePart = (h: Pick<DetectedHead, 'box'>) => [h.box, headFaceRegion(h, img.width, img.height)];
    heads = candidates.filter((h) => !faces.some((f) => facePart(h).some((part) => overlapOfSmaller(part, faceRegion(f, img.width, img.height)) > 0.3)));
  }
  let passes = 0;
  while ((faces.length > 0 || heads.length > 0) && passes < MAX_PASSES) {
    passes++;
    for (const f of faces) {
      // The first pass covers each face's whole region; a later one only the box found (the
      // detector's false faces next to a filled region would otherwise grow it pass after pass).
      // With the people known, on the face of the judged head it lies in (issue 51).
      const head = headOf(f.box, people?.heads);
      const box = spareHats(facePatch(passes === 1 ? faceRegion(f, img.width, img.height) : f.box, head, img.width, img.height, sureFace(f)), people?.heads, sureFace(f), head);
      cover(box);
      addRegion(regions, { box, source: 'face', score: f.score, ...(head ? { head } : {}) }, people !== undefined);
    }
    for (const h of heads) {
      const head = people ? h.box : undefined;
      const box = spareHats(facePatch(headFaceRegion(h, img.width, img.height), head, img.width, img.height), people?.heads);
      cover(box);
      addRegion(regions, { box, source: 'head', score: h.score, ...(head ? { head } : {}) }, people !== undefined);
    }
    heads = [];
    // Searched once more as the JPEG it becomes ({@link blurFaces}: the same search on what is stored).
    if (passes >= (opts.passes ?? MAX_PASSES)) {
      faces = [];
      break;
    }
    // Later passes look at the whole image only, at the detector's default score: what it finds at its own scale
    // (with the people known: only what the blur left of a face it covered, not new false faces elsewhere).
    faces = (await findFaces(img, Math.max(minScore, FACE_DEFAULT_MIN_SCORE), false)).filter((f) => !people || sameFace(f.box, [...found, ...regions.map((r) => r.box)]));
  }
  if (people) mergeByHead(regions, cover, people.heads);
  if (opts.thumbnail) await retoneForThumbnail(img, regions, cover);
  const left = faces.filter((f) => f.score >= FACE_DEFAULT_MIN_SCORE);
  const remaining = left.filter((f) => sameFace(f.box, found)).length;
  return { regions: regions.map((r) => ({ ...r, box: r.box.map((v) => Math.round(v)) as Box })), passes, remaining, falseFaces: left.length - remaining, found, filled };
}

/**
 * Faces on images shown small at each of `sides` (its long side that many pixels), all in one
 * BlazeFace call: each copy in a cell of a white 256-pixel canvas (a page around it) — a quarter of
 * it for up to four copies (at least 40 pixels of white between them), a sixteenth for up to
 * sixteen (at least 24); boxes in pixels of each image, one list per image.
 */
async function facesShownSmall(images: readonly RawImage[], sides: readonly number[]): Promise<DetectedFace[][]> {
  const copies = images.flatMap((img, n) => sides.map((side) => ({ img, n, side }))).slice(0, 16);
  const perRow = copies.length <= 4 ? 2 : 4;
  const cell = 256 / perRow;
  const canvas: RawImage = { data: new Uint8Array(256 * 256 * 3).fill(255), width: 256, height: 256 };
  const placed = await Promise.all(
    copies.map(async ({ img, n, side }, i) => {
      const s = side / Math.max(img.width, img.height);
      const w = Math.max(1, Math.round(img.width * s));
      const h = Math.max(1, Math.round(img.height * s));
      const small = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), { raw: { width: img.width, height: img.height, channels: 3 } })
        .resize(w, h, { fit: 'fill' })
        .raw()
        .toBuffer();
      const x0 = (i % perRow) * cell + Math.floor((cell - w) / 2);
      const y0 = Math.floor(i / perRow) * cell + Math.floor((cell - h) / 2);
      for (let r = 0; r < h; r++) canvas.data.set(small.subarray(r * w * 3, (r + 1) * w * 3), ((y0 + r) * 256 + x0) * 3);
      return { n, s, rect: [x0, y0, w, h] as Box };
    }),
  );
  const found: DetectedFace[][] = images.map(() => []);
  for (const f of await detectFacesRaw(canvas, { minScore: FACE_DEFAULT_MIN_SCORE })) {
    const at = placed.find((p) => centreIn(f.box, [p.rect]));
    if (!at) continue;
    const [x0, y0] = at.rect;
    found[at.n]!.push({ ...f, box: [(f.box[0] - x0) / at.s, (f.box[1] - y0) / at.s, f.box[2] / at.s, f.box[3] / at.s] as Box });
  }
  return found;
}

/** Draws a patch on the image being covered and keeps it in the report's `filled`. */
type Cover = (box: Box, tone?: (colour: number[]) => number[]) => void;
const patcher =
  (img: RawImage, filled: Box[]): Cover =>
  (box, tone) => {
    fill(img, box, tone);
    filled.push(box);
  };

/**
 * A thumbnail's patches, toned again when BlazeFace still finds a face over one of them at
 * thumbnail size (issue 39): no patch grows, so no more of the evidence is covered. The patches
 * found are toned each of {@link RETONES} ways on copies of the image, all searched in one call;
 * the first tone that leaves no face over them is taken (none does: the one that leaves fewest,
 * the last of those).
 */
async function retoneForThumbnail(img: RawImage, regions: readonly BlurRegion[], cover: Cover): Promise<void> {
  const over = (faces: readonly DetectedFace[], among: readonly BlurRegion[]) => among.filter((r) => faces.some((f) => centreIn(f.box, [r.box])));
  const [first] = await facesShownSmall([img], THUMBNAIL_SIDES);
  const found = over(first!, regions);
  if (found.length === 0) return;
  const variants = RETONES.map((tone) => {
    const copy: RawImage = { ...img, data: img.data.slice() };
    for (const r of found) fill(copy, r.box, tone);
    return copy;
  });
  const left = (await facesShownSmall(variants, THUMBNAIL_SIDES)).map((faces) => over(faces, found).length);
  const clean = left.indexOf(0);
  const best = clean >= 0 ? clean : left.lastIndexOf(Math.min(...left));
  for (const r of found) cover(r.box, RETONES[best]);
}

/**
 * Adds a covered region to the list; with `merge` (one patch per face, issue 39), a region over
 * one already there — what a later pass covers again of the same face — widens that one instead:
 * one of the same judged head (issue 51: not a neighbour's), or, in no head, one of about its size
 * (not a face many times larger found around it).
 */
function addRegion(regions: BlurRegion[], region: BlurRegion, merge: boolean): void {
  const alike = (r: BlurRegion) => (r.head ? true : Math.max(r.box[2], region.box[2]) <= FACE_HEAD_WIDTH * Math.min(r.box[2], region.box[2]));
  const same = merge ? regions.find((r) => r.head === region.head && alike(r) && sameFace(region.box, [r.box])) : undefined;
  if (same) widen(same, region.box);
  else regions.push(region);
}

/** A region widened to hold `box` too. */
function widen(region: BlurRegion, box: Box): void {
  const x0 = Math.min(region.box[0], box[0]);
  const y0 = Math.min(region.box[1], box[1]);
  region.box = [x0, y0, Math.max(region.box[0] + region.box[2], box[0] + box[2]) - x0, Math.max(region.box[1] + region.box[3], box[1] + box[3]) - y0];
}

/**
 * One patch per face (issue 39): overlapping patches put on the same judged head become one, over
 * the box that holds them — inside that head's face, as each of them is (issue 51: the patches
 * around a head's zone, merged, made one box over the hard hat, the neck and a neighbour's face;
 * two faces apart in one head box too large, two patches).
 */
function mergeByHead(regions: BlurRegion[], cover: Cover, heads: readonly Box[]): void {
  const overlap = (a: Box, b: Box) => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
  for (let i = 0; i < regions.length; i++) {
    const head = regions[i]!.head;
    if (!head) continue;
    // The patches of this head that overlap this one, or one overlapping it, …
    const mine = [regions[i]!];
    for (let grown = true; grown; ) {
      grown = false;
      for (const r of regions) {
        if (r.head !== head || mine.includes(r) || !mine.some((m) => overlap(m.box, r.box))) continue;
        mine.push(r);
        grown = true;
      }
    }
    if (mine.length < 2) continue;
    const x0 = Math.min(...mine.map((r) => r.box[0]));
    const y0 = Math.min(...mine.map((r) => r.box[1]));
    const box: Box = [x0, y0, Math.max(...mine.map((r) => r.box[0] + r.box[2])) - x0, Math.max(...mine.map((r) => r.box[1] + r.box[3])) - y0];
    // Not when the box that holds them would reach over a hard hat that none of them covers (issue 53).
    const parts = mine.map((r) => r.box);
    if (heads.some((h) => coveredIn([box], hatZone(h)) > coveredIn(parts, hatZone(h)))) continue;
    cover(box);
    const score = Math.max(...mine.map((r) => r.score));
    for (const r of mine) regions.splice(regions.indexOf(r), 1);
    regions.splice(i, 0, { box, source: 'face', score, head });
  }
}

/**
 * Where the face starts in a judged head box (hat or hair to chin), as a fraction of its height
 * from the top (issue 51): above is the headwear — a hard hat's shell and brim — which a patch does
 * not cover. The tops of the faces BlazeFace finds at 0.5 or more in the judge's head boxes on
 * safety-vest-v4 lie at 0.47 of the box (median); a head box the judge derives from a face has
 * the brows at 0.45 ({@link FACE_HEAD} in ppe.ts).
 */
export const HEAD_BROW = 0.4;
/** Where a face patch in a judged head ends, as a fraction of its height (issue 39): a little below its chin, not over the collar and the vest. 1.15 left the jaw of a short head box showing, which BlazeFace found again on a rendered PDF page (issue 54); 1.25 covers it. */
export const HEAD_CHIN = 1.25;
/** How far a face patch in a judged head may reach past its sides, as a fraction of its width (issue 51). */
export const HEAD_SIDE = 0.25;
/**
 * A face is a judged head's only when it is at most this many times as wide as the head (issue 51):
 * a wider face is no face of that head — the head box is off, or it is a small head behind a close
 * face (the faces BlazeFace is sure of in the judge's head boxes on safety-vest-v4 are 0.79 of the
 * head's width, median, 1.41 at most).
 */
export const FACE_HEAD_WIDTH = 1.5;

/**
 * The judged head a face belongs to (issue 51): one whose box holds the face box's centre, or
 * whose centre the face box holds, and no narrower than the face allows ({@link FACE_HEAD_WIDTH});
 * of several, one holding the face's centre first, then the nearest.
 */
export function headOf(face: Box, heads: readonly Box[] | undefined): Box | undefined {
  const [cx, cy] = centreOf(face);
  const rank = (h: Box) => (centreIn(face, [h]) ? 0 : 1e6) + Math.hypot(centreOf(h)[0] - cx, centreOf(h)[1] - cy);
  return heads?.filter((h) => face[2] <= FACE_HEAD_WIDTH * h[2] && (centreIn(face, [h]) || centreIn(h, [face]))).sort((a, b) => rank(a) - rank(b))[0];
}

/** The face's own box when BlazeFace is sure of it on the whole image ({@link FACE_SURE_SCORE}; a tile's score says less). */
const sureFace = (f: SearchedFace): Box | undefined => (f.score >= FACE_SURE_SCORE && !f.tile ? f.box : undefined);

/**
 * A face's patch put on the judged head it belongs to (issue 51): `region` (the face and its margin,
 * {@link faceRegion}) cut to that head's face part — from the brow ({@link HEAD_BROW}) to a little
 * below the chin ({@link HEAD_CHIN}), no more than {@link HEAD_SIDE} of the head past its sides —
 * not over the hard hat above the brow, not over the collar and the vest below the chin, not over a
 * neighbour beside it. A face BlazeFace is sure of (`sure`, its box) keeps its region's top (its
 * brows) and its own box however the head box lies — the judge's head box is placed by keypoints,
 * the face by the face detector — and only the margin beside and below it stays within the head.
 * A patch with next to nothing left inside (a "face" BlazeFace found on a hat or the back of a
 * head) covers the head's face instead ({@link headFaceRegion}): a face found in a worker's head is
 * covered where that head's face is. With no head, the patch is `region`.
 */
export function facePatch(region: Box, head: Box | undefined, width: number, height: number, sure?: Box): Box {
  if (!head) return region;
  const [hx, hy, hw, hh] = head;
  const inside = (b: Box): [number, number, number, number] => [
    Math.max(b[0], hx - HEAD_SIDE * hw),
    sure ? b[1] : Math.max(b[1], hy + HEAD_BROW * hh),
    Math.min(b[0] + b[2], hx + (1 + HEAD_SIDE) * hw),
    Math.min(b[1] + b[3], hy + HEAD_CHIN * hh),
  ];
  let [x0, y0, x1, y1] = inside(region);
  if (sure) {
    x0 = Math.min(x0, sure[0]);
    x1 = Math.max(x1, sure[0] + sure[2]);
    y1 = Math.max(y1, sure[1] + sure[3]);
  } else if (x1 - x0 < 0.3 * hw || y1 - y0 < 0.25 * hh) {
    [x0, y0, x1, y1] = inside(headFaceRegion({ box: head }, width, height));
  }
  x0 = clamp(x0, 0, width);
  y0 = clamp(y0, 0, height);
  return [x0, y0, Math.max(0, clamp(x1, 0, width) - x0), Math.max(0, clamp(y1, 0, height) - y0)];
}

/** How far a hard hat's brim may reach past its judged head box's sides, as a fraction of its width (issue 53). */
export const HAT_SIDE = 0.2;
/** How far above its judged head box a hard hat may reach, as a fraction of its height (issue 53). Half the height spared more hats (19 crops over one against 23) but left 3 more faces showing on safety-vest-v4. */
export const HAT_ABOVE = 0.1;

/**
 * The hard hat of a judged head (issue 53: a patch never hides the item judged): the head box from
 * a tenth of its height above it down to the brow ({@link HEAD_BROW}: the face starts there), a
 * brim's width ({@link HAT_SIDE}) past each side.
 */
export function hatZone([hx, hy, hw, hh]: Box): Box {
  return [hx - HAT_SIDE * hw, hy - HAT_ABOVE * hh, (1 + 2 * HAT_SIDE) * hw, (HAT_ABOVE + HEAD_BROW) * hh];
}

/**
 * A patch kept off the hard hats of the judged heads (issue 53): where it overlaps a head's
 * {@link hatZone}, it keeps the largest part beside, above or below it. A face BlazeFace is sure of
 * (`keep`, its box) is never cut: a face in front of a neighbour's hat stays covered (privacy comes
 * first), only the margin around it gives way — where the face lies on a neighbour's hat itself,
 * each side of the margin that reaches over that hat (not on `own`, the judged head it is the face
 * of: there the margin stays, or the head's outline shows as a face on a PDF page). The patches
 * this cuts are the ones that covered a worker's hat on the validation photos: a face found too
 * wide for any head (a false face, or a face and the hat above it) and a neighbour's patch over a
 * hat behind it.
 */
export function spareHats(patch: Box, heads: readonly Box[] | undefined, keep?: Box, own?: Box): Box {
  let [x0, y0, x1, y1] = [patch[0], patch[1], patch[0] + patch[2], patch[1] + patch[3]];
  const holds = ([a, b, c, d]: number[]) => !keep || (a! <= keep[0] && b! <= keep[1] && c! >= keep[0] + keep[2] && d! >= keep[1] + keep[3]);
  const area = ([a, b, c, d]: number[]) => (c! - a!) * (d! - b!);
  for (const head of heads ?? []) {
    const [zx, zy, zw, zh] = hatZone(head);
    if (zx + zw <= x0 || x1 <= zx || zy + zh <= y0 || y1 <= zy) continue;
    const parts = [
      [x0, Math.max(y0, zy + zh), x1, y1],
      [x0, y0, x1, Math.min(y1, zy)],
      [x0, y0, Math.min(x1, zx), y1],
      [Math.max(x0, zx + zw), y0, x1, y1],
    ].filter((b) => b[2]! > b[0]! && b[3]! > b[1]! && holds(b));
    const best = parts.sort((a, b) => area(b) - area(a))[0];
    if (best) [x0, y0, x1, y1] = best as [number, number, number, number];
    else if (keep && head !== own) {
      // The sure face itself lies on a neighbour's hat (a face in front of it): its margins still
      // give way where they reach over that hat (issue 53).
      const over = (a: number, b: number, c: number, d: number) => a < zx + zw && zx < c && b < zy + zh && zy < d;
      if (x0 < keep[0] && over(x0, y0, keep[0], y1)) x0 = keep[0];
      if (x1 > keep[0] + keep[2] && over(keep[0] + keep[2], y0, x1, y1)) x1 = keep[0] + keep[2];
      if (y0 < keep[1] && over(x0, y0, x1, keep[1])) y0 = keep[1];
      if (y1 > keep[1] + keep[3] && over(x0, keep[1] + keep[3], x1, y1)) y1 = keep[1] + keep[3];
    }
  }
  return [x0, y0, x1 - x0, y1 - y0];
}

/** What {@link blurFaces} answers. */
export type FaceBlurResult = FaceBlurReport & { jpeg: Buffer; width: number; height: number };

/** Blurs the faces of an image (in a detector thread in the service, `detectorPool.ts`); `people`: see {@link FaceBlurOptions.people}. */
export type FaceBlurFn = (image: Buffer, opts?: Pick<FaceBlurOptions, 'people' | 'faces' | 'tiles' | 'heads' | 'thumbnail' | 'patches' | 'worker'>) => Promise<FaceBlurResult>;

const decode = async (image: Buffer): Promise<RawImage> => {
  const { data, info } = await sharp(image).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
};
const encode = (img: RawImage, quality: number): Promise<Buffer> =>
  sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), { raw: { width: img.width, height: img.height, channels: 3 } }).jpeg({ quality }).toBuffer();

/** Rounds of checking the encoded JPEG at most (JPEG's own rounding can bring a blurred face back over the detector's score). */
export const JPEG_CHECKS = 3;

/**
 * {@link blurFacesRaw} on a JPEG (or any image sharp reads): the blurred image as JPEG, its size
 * and the report. The encoded JPEG — what is stored — is decoded and searched again at
 * BlazeFace's default score; what is found there is covered in turn, up to {@link JPEG_CHECKS} times, and `remaining` / `falseFaces` describe the
 * JPEG handed back.
 */
export async function blurFaces(image: Buffer, opts: FaceBlurOptions & { quality?: number } = {}): Promise<FaceBlurResult> {
  const quality = opts.quality ?? 90;
  let img = await decode(image);
  // With the people known, one pass on the pixels: what it leaves of their faces is found on the
  // encoded JPEG below, the image stored. (Covering every face, the passes also cover the false faces
  // a patch makes next to it, which the JPEG's rounds alone may not all reach.)
  const report = await blurFacesRaw(img, opts.people ? { ...opts, passes: 1 } : opts);
  if (report.regions.length === 0 && opts.quality === undefined) return { ...report, jpeg: image, width: img.width, height: img.height };
  let jpeg = await encode(img, quality);
  let left: DetectedFace[] = [];
  const retoned = new Map<BlurRegion, number>();
  for (let round = 0; round <= JPEG_CHECKS; round++) {
    img = await decode(jpeg);
    left = await detectFacesRaw(img, { minScore: FACE_DEFAULT_MIN_SCORE });
    // With the people known, what the JPEG brought back of a covered face is covered again, not the false faces elsewhere.
    const covered = report.regions.map((r) => r.box);
    // (Of about its size: a "face" found around a patch and much larger than it is the chest or the wall around it, issue 51.)
    if (opts.people) left = left.filter((f) => [...covered, ...report.found].some((b) => f.box[2] <= FACE_HEAD_WIDTH * b[2] && sameFace(f.box, [b])));
    if (left.length === 0 || round === JPEG_CHECKS) break;
    for (const f of left) {
      // With the people known, a face found again is covered on the face of the judged head it lies
      // in, as the pass on the pixels covered it (issue 51). One over a patch adding next to nothing
      // to it (the patch and the hat above it, or a forehead, taken for a face) tones that patch again
      // ({@link RETONES}) instead of growing it over the hat.
      const on = opts.people ? report.regions.find((r) => centreIn(f.box, [r.box])) : undefined;
      const head = on ? on.head : headOf(f.box, opts.people?.heads);
      // (Not kept off the hats, {@link spareHats}: what BlazeFace still finds at its default score on what is stored is covered, privacy first.)
      const box = opts.people ? facePatch(f.box, head, img.width, img.height, sureFace(f)) : f.box;
      if (on && coveredIn(report.filled, box) >= 0.9 * coveredIn([box], box)) {
        const n = retoned.get(on) ?? 0;
        retoned.set(on, n + 1);
        patcher(img, report.filled)(on.box, RETONES[n % RETONES.length]);
        continue;
      }
      patcher(img, report.filled)(box);
      const region: BlurRegion = { box: box.map((v) => Math.round(v)) as Box, source: 'face', score: f.score, ...(head ? { head } : {}) };
      // Found over a patch, it widens that patch (one patch per face).
      if (on) widen(on, region.box);
      else addRegion(report.regions, region, opts.people !== undefined);
    }
    jpeg = await encode(img, quality);
  }
  const remaining = left.filter((f) => sameFace(f.box, report.found)).length;
  return { ...report, remaining, falseFaces: left.length - remaining, jpeg, width: img.width, height: img.height };
}
