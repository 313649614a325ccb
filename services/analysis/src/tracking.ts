import type { RelBox } from './engine/types.js';

/**
 * Follows workers from one sampled frame to the next by where they stand, so a worker keeps one
 * number over the whole video and a worker seen without a hard hat in four frames in a row is one
 * violation, not four.
 *
 * There is no appearance model: two sightings are the same worker when their boxes (fractions of
 * the whole video frame) overlap or lie close together at a similar size. Sampled frames are
 * seconds apart, so this holds for a crew working in place (on a pole, at a cabinet) and breaks for
 * workers who cross the picture between two samples: such a worker gets a new number. A worker not
 * seen for more than {@link TrackerOptions.maxGapFrames} sampled frames is forgotten.
 */
export interface TrackerOptions {
  /** Sampled frames a worker may go unseen and still be recognised (default 3). */
  maxGapFrames?: number;
  /** Least similarity (0..1, see {@link similarity}) for two sightings to be one worker (default 0.3). */
  minSimilarity?: number;
}

interface Track {
  id: number;
  box: RelBox;
  frameIndex: number;
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

export class WorkerTracker {
  /** Workers that can still be recognised (the ones unseen for longer are dropped). */
  private tracks: Track[] = [];
  private nextId = 1;
  private readonly maxGap: number;
  private readonly minSimilarity: number;

  constructor(opts: TrackerOptions = {}) {
    this.maxGap = opts.maxGapFrames ?? 3;
    this.minSimilarity = opts.minSimilarity ?? 0.3;
  }

  /** How many workers have been numbered so far (each worker once, as far as they were followed). */
  get count(): number {
    return this.nextId - 1;
  }

  /**
   * The worker number of each box of one frame (same order as `boxes`). Frames must come in
   * time order. Pairs are taken most alike first, each worker at most once per frame; boxes left
   * over are new workers, numbered left to right.
   */
  assign(frameIndex: number, boxes: readonly RelBox[]): number[] {
    this.tracks = this.tracks.filter((t) => frameIndex - t.frameIndex <= this.maxGap + 1);
    const live = this.tracks.filter((t) => t.frameIndex < frameIndex);
    const pairs: Array<{ t: Track; b: number; s: number }> = [];
    for (const t of live) {
      for (const [b, box] of boxes.entries()) {
        const s = similarity(t.box, box);
        if (s >= this.minSimilarity) pairs.push({ t, b, s });
      }
    }
    // Most alike first; ties go to the worker seen most recently, then the older number.
    pairs.sort((p, q) => q.s - p.s || q.t.frameIndex - p.t.frameIndex || p.t.id - q.t.id);
    const matched: Array<Track | undefined> = boxes.map(() => undefined);
    const taken = new Set<Track>();
    for (const { t, b } of pairs) {
      if (taken.has(t) || matched[b]) continue;
      taken.add(t);
      matched[b] = t;
    }
    const fresh = boxes.map((box, b) => ({ box, b })).filter(({ b }) => !matched[b]);
    for (const { box, b } of fresh.sort((p, q) => p.box.x - q.box.x)) {
      const track = { id: this.nextId++, box, frameIndex };
      this.tracks.push(track);
      matched[b] = track;
    }
    return boxes.map((box, b) => {
      const track = matched[b]!;
      track.box = box;
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
