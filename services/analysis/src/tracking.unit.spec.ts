import { describe, expect, it } from 'vitest';

import type { RelBox } from './engine/types.js';
import { cameraShift, similarity, toVideoBox, WorkerTracker } from './tracking.js';

const box = (x: number, y: number, w = 0.1, h = 0.4): RelBox => ({ x, y, w, h });

describe('WorkerTracker', () => {
  it('keeps each worker of a crew working in place on one number, whatever order the detector lists them in', () => {
    const t = new WorkerTracker();
    expect(t.assign(0, [box(0.1, 0.3), box(0.45, 0.3), box(0.8, 0.3)])).toEqual([1, 2, 3]);
    // A little movement, listed in another order.
    expect(t.assign(1, [box(0.83, 0.31), box(0.12, 0.29), box(0.47, 0.3)])).toEqual([3, 1, 2]);
    expect(t.assign(2, [box(0.46, 0.32), box(0.85, 0.3)])).toEqual([2, 3]);
  });

  it('numbers a worker who walks in later after everyone seen before, and new workers of one frame left to right', () => {
    const t = new WorkerTracker();
    expect(t.assign(0, [box(0.1, 0.3)])).toEqual([1]);
    expect(t.assign(1, [box(0.75, 0.3), box(0.1, 0.3), box(0.45, 0.3)])).toEqual([3, 1, 2]);
  });

  it('recognises a worker missed by the detector for a few frames, and forgets one gone longer', () => {
    const t = new WorkerTracker({ maxGapFrames: 2 });
    t.assign(0, [box(0.1, 0.3), box(0.6, 0.3)]);
    t.assign(1, [box(0.1, 0.3)]);
    t.assign(2, [box(0.1, 0.3)]);
    // Worker 2 unseen in frames 1 and 2 (a gap of 2): still worker 2 in frame 3.
    expect(t.assign(3, [box(0.1, 0.3), box(0.61, 0.3)])).toEqual([1, 2]);
    t.assign(4, [box(0.1, 0.3)]);
    t.assign(5, [box(0.1, 0.3)]);
    t.assign(6, [box(0.1, 0.3)]);
    // Unseen in frames 4–6 (a gap of 3): a new worker.
    expect(t.assign(7, [box(0.1, 0.3), box(0.61, 0.3)])).toEqual([1, 3]);
  });

  it('does not take one worker for two in the same frame, nor match workers of very different size', () => {
    const t = new WorkerTracker();
    t.assign(0, [box(0.4, 0.3)]);
    // Two workers near where worker 1 stood: the closer one is worker 1, the other is new.
    expect(t.assign(1, [box(0.47, 0.3), box(0.41, 0.3)])).toEqual([2, 1]);
    // A far smaller figure at the same place (someone in the background) is not worker 1 or 2.
    expect(t.assign(2, [box(0.42, 0.3, 0.02, 0.08)])).toEqual([3]);
  });

  it('similarity is 1 for the same box, falls with distance and is 0 far away or at a very different height', () => {
    expect(similarity(box(0.2, 0.2), box(0.2, 0.2))).toBeCloseTo(1, 6);
    expect(similarity(box(0.2, 0.2), box(0.25, 0.2))).toBeGreaterThan(similarity(box(0.2, 0.2), box(0.3, 0.2)));
    expect(similarity(box(0.1, 0.2), box(0.8, 0.2))).toBe(0);
    expect(similarity(box(0.2, 0.2, 0.1, 0.4), box(0.2, 0.2, 0.03, 0.1))).toBe(0);
  });

  it('maps a box of a frame cropped around the workers into the whole video frame', () => {
    const region = { x: 0.5, y: 0.25, w: 0.5, h: 0.5 };
    expect(toVideoBox({ x: 0.2, y: 0.4, w: 0.2, h: 0.4 }, region)).toEqual({ x: 0.6, y: 0.45, w: 0.1, h: 0.2 });
    expect(toVideoBox(box(0.2, 0.2), undefined)).toEqual(box(0.2, 0.2));
  });

  it('follows a crew through a pan: every worker moves the same way, and the numbers stay', () => {
    const t = new WorkerTracker();
    expect(t.assign(0, [box(0.1, 0.3), box(0.3, 0.3), box(0.5, 0.3)])).toEqual([1, 2, 3]);
    // The camera pans: everyone is 0.17 further left (more than a box height's worth of closeness lost without the shift).
    expect(t.assign(1, [box(0.13, 0.3), box(0.33, 0.3), box(-0.07, 0.3)])).toEqual([2, 3, 1]);
    expect(cameraShift([box(0.1, 0.3), box(0.3, 0.3)], [box(0.13, 0.3), box(-0.07, 0.3)]).dx).toBeCloseTo(-0.17, 6);
    // One pair alone moves nothing: it cannot tell a pan from two different workers.
    expect(cameraShift([box(0.1, 0.3)], [box(0.6, 0.3)])).toEqual({ dx: 0, dy: 0 });
  });

  it('tells two workers apart by their clothes, and starts new workers after a cut between shots', () => {
    const red = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    const blue = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
    const site = [0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5, 0, 0];
    const street = [0, 0, 0, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0.5, 0, 0, 0];
    const t = new WorkerTracker();
    expect(t.assign(0, [{ box: box(0.4, 0.3), look: red }], site)).toEqual([1]);
    // The same place, other clothes: someone else.
    expect(t.assign(1, [{ box: box(0.41, 0.3), look: blue }], site)).toEqual([2]);
    expect(t.assign(2, [{ box: box(0.42, 0.3), look: blue }], site)).toEqual([2]);
    // A cut: the next shot looks nothing like this one, so the worker in blue there is new too.
    expect(t.assign(3, [{ box: box(0.42, 0.3), look: blue }], street)).toEqual([3]);
  });
});
