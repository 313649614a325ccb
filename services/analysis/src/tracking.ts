import { lookSimilarity } from './engine/appearance.js';
import type { RelBox } from './engine/types.js';

/**
 * Follows workers from one sampled frame to the next, so that a worker keeps one number over the
 * whole video (issue 51: a crew of fifteen is fifteen workers, and a worker's verdicts come from
 * every frame of their track).
 *
 * Two sightings are the same worker when their boxes (fractions of the whole video frame) lie
 * close together at a similar size once the camera's own movement is taken out, and — where the
 * analyzer says what the workers look like ({@link lookSimilarity}: the colours of their clothes) —
 * they look alike. The camera's movement between two frames is the shift that most pairs of
 * similar-sized boxes agree on (a pan moves every worker the same way); a lone pair moves nothing.
 * A cut between two shots — the frame's own look changes at once ({@link TrackerOptions.minFrameLook}) —
 * ends every track: the workers after it are new. A worker not seen for more than
 * {@link TrackerOptions.maxGapFrames} sampled frames is forgotten.
 */
export interface TrackerOptions {
  /** Sampled frames a worker may go unseen and still be recognised (default 3). */
  maxGapFrames?: number;
  /** Least similarity (0..1, see {@link similarity}) for two sightings to be one worker (default 0.3). */
  minSimilarity?: number;
  /** Least look similarity of two sightings of one worker, where both looks are known (default 0.65). */
  minLook?: number;
  /**
   * Below this similarity of two frames' looks, a cut between shots lies between them (default 0.88):
   * sampled frames of one shot of the four real clips, panned and handheld, 0.7 s apart, are
   * 0.915–1 alike (the lowest at the start of a handheld crowd clip); cuts between photos of one
   * data set 0.66–0.85 (appearance.ts, frameLook).
   */
  minFrameLook?: number;
}

interface Track {
  id: number;
  box: RelBox;
  look?: number[];
  frameIndex: number;
}

/** One worker in one frame: where, and (when the analyzer says) what they look like. */
export interface Sighting {
  box: RelBox;
  look?: number[];
}

/**
 * How alike two boxes are as sightings of one worker, 0..1: the mean of their overlap (IoU) and
 * their closeness (1 at the same centre, 0 at a centre distance of one box height or more). Boxes
 * whose heights differ by more than 2.5× are never alike (a worker does not grow that much
 * between two samples).
 */
export function similarity(a: RelBox, b: RelBox): number {
  const ratio = Math.min(a.h, b.h) / Math.max(a.h, b.h, 1e-9);
  if (ratio < 0.4) return 0;
  const ix = Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x));
  const iy = Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
  const inter = ix * iy;
  const union = a.w * a.h + b.w * b.h - inter;
  const iou = union > 0 ? inter / union : 0;
  const dx = a.x + a.w / 2 - (b.x + b.w / 2);
  const dy = a.y + a.h / 2 - (b.y + b.h / 2);
  const scale = (a.h + b.h) / 2;
  const closeness = scale > 0 ? Math.max(0, 1 - Math.hypot(dx, dy) / scale) : 0;
  return (iou + closeness) / 2;
}

const centre = (b: RelBox) => ({ x: b.x + b.w / 2, y: b.y + b.h / 2 });

/**
 * The camera's movement from the tracks' last boxes to this frame's: the shift (fractions of the
 * frame) that the most pairs of similar-sized boxes agree on, within half a box width; none
 * unless at least two pairs, of two different tracks, agree (one pair alone cannot tell a pan from
 * two different workers).
 */
export function cameraShift(tracks: readonly RelBox[], boxes: readonly RelBox[]): { dx: number; dy: number } {
  const pairs: Array<{ t: number; dx: number; dy: number; w: number }> = [];
  for (const [t, a] of tracks.entries()) {
    for (const b of boxes) {
      if (Math.min(a.h, b.h) / Math.max(a.h, b.h, 1e-9) < 0.6) continue;
      const ca = centre(a);
      const cb = centre(b);
      pairs.push({ t, dx: cb.x - ca.x, dy: cb.y - ca.y, w: Math.min(a.w, b.w) });
    }
  }
  let best = { dx: 0, dy: 0 };
  let bestSupport = 1;
  let bestSize = Infinity;
  for (const p of pairs) {
    const agree = pairs.filter((q) => Math.hypot(q.dx - p.dx, q.dy - p.dy) <= 0.5 * Math.min(p.w, q.w));
    const support = new Set(agree.map((q) => q.t)).size;
    const size = Math.hypot(p.dx, p.dy);
    if (support > bestSupport || (support === bestSupport && support > 1 && size < bestSize)) {
      const n = agree.length;
      best = { dx: agree.reduce((s, q) => s + q.dx, 0) / n, dy: agree.reduce((s, q) => s + q.dy, 0) / n };
      bestSupport = support;
      bestSize = size;
    }
  }
  return best;
}

export class WorkerTracker {
  /** Workers that can still be recognised (the ones unseen for longer are dropped). */
  private tracks: Track[] = [];
  private nextId = 1;
  private lastFrameLook: number[] | undefined;
  /** The shot each frame belongs to (a cut starts the next), by frame index, and how many frames each shot has. */
  private readonly shots = new Map<number, number>();
  private readonly shotFrames: number[] = [];
  private shot = 0;
  private readonly maxGap: number;
  private readonly minSimilarity: number;
  private readonly minLook: number;
  private readonly minFrameLook: number;

  constructor(opts: TrackerOptions = {}) {
    this.maxGap = opts.maxGapFrames ?? 3;
    this.minSimilarity = opts.minSimilarity ?? 0.3;
    this.minLook = opts.minLook ?? 0.65;
    this.minFrameLook = opts.minFrameLook ?? 0.88;
  }

  /** How many frames were assigned to the shot of this frame (each cut seen starts a new shot); 0 for a frame not assigned. */
  framesOfShotOf(frameIndex: number): number {
    const shot = this.shots.get(frameIndex);
    return shot === undefined ? 0 : (this.shotFrames[shot] ?? 0);
  }

  /** How many workers have been numbered so far (each worker once, as far as they were followed). */
  get count(): number {
    return this.nextId - 1;
  }

  /**
   * The worker number of each sighting of one frame (same order as `sightings`; plain boxes are
   * sightings without a look). Frames must come in time order. `frameLook`: what the whole frame
   * looks like, to see a cut. Pairs are taken most alike first, each worker at most once per frame;
   * sightings left over are new workers, numbered left to right.
   */
  assign(frameIndex: number, sightings: ReadonlyArray<RelBox | Sighting>, frameLook?: number[]): number[] {
    const seen: Sighting[] = sightings.map((s) => ('box' in s ? s : { box: s }));
    const frameSimilarity = lookSimilarity(this.lastFrameLook, frameLook);
    if (frameLook) this.lastFrameLook = frameLook;
    // A cut between shots: nobody before it is anybody after it.
    if (frameSimilarity !== null && frameSimilarity < this.minFrameLook) {
      this.tracks = [];
      this.shot += 1;
    }
    if (!this.shots.has(frameIndex)) this.shotFrames[this.shot] = (this.shotFrames[this.shot] ?? 0) + 1;
    this.shots.set(frameIndex, this.shot);
    this.tracks = this.tracks.filter((t) => frameIndex - t.frameIndex <= this.maxGap + 1);
    const live = this.tracks.filter((t) => t.frameIndex < frameIndex);
    const shift = cameraShift(
      live.map((t) => t.box),
      seen.map((s) => s.box),
    );
    const pairs: Array<{ t: Track; b: number; s: number }> = [];
    for (const t of live) {
      const moved = { ...t.box, x: t.box.x + shift.dx, y: t.box.y + shift.dy };
      for (const [b, s] of seen.entries()) {
        const place = similarity(moved, s.box);
        if (place < this.minSimilarity) continue;
        const look = lookSimilarity(t.look, s.look);
        if (look !== null && look < this.minLook) continue;
        pairs.push({ t, b, s: look === null ? place : (place + look) / 2 });
      }
    }
    // Most alike first; ties go to the worker seen most recently, then the older number.
    pairs.sort((p, q) => q.s - p.s || q.t.frameIndex - p.t.frameIndex || p.t.id - q.t.id);
    const matched: Array<Track | undefined> = seen.map(() => undefined);
    const taken = new Set<Track>();
    for (const { t, b } of pairs) {
      if (taken.has(t) || matched[b]) continue;
      taken.add(t);
      matched[b] = t;
    }
    const fresh = seen.map((s, b) => ({ box: s.box, b })).filter(({ b }) => !matched[b]);
    for (const { box, b } of fresh.sort((p, q) => p.box.x - q.box.x)) {
      const track: Track = { id: this.nextId++, box, frameIndex };
      this.tracks.push(track);
      matched[b] = track;
    }
    return seen.map((s, b) => {
      const track = matched[b]!;
      track.box = s.box;
      // The look follows the worker slowly: one odd frame (bent, half hidden) does not replace it.
      track.look = !track.look || !s.look ? (s.look ?? track.look) : track.look.map((v, i) => 0.6 * v + 0.4 * s.look![i]!);
      track.frameIndex = frameIndex;
      return track.id;
    });
  }
}

/** A box in fractions of a frame that shows `region` of the video frame, in fractions of the whole video frame. */
export function toVideoBox(box: RelBox, region: RelBox | undefined): RelBox {
  if (!region) return box;
  return { x: region.x + box.x * region.w, y: region.y + box.y * region.h, w: box.w * region.w, h: box.h * region.h };
}
