import { describe, expect, it } from 'vitest';

import type { CompositeAnalysis, CompositeCell, RelBox, WearVerdict, WorkerSighting } from './engine/types.js';
import { Findings, MAX_VIOLATIONS_PER_GROUP } from './result.js';

const HAT = ['pic1'];
const VEST = ['pic23', 'pic24'];
const ZERO = { promptTokens: 0, completionTokens: 0 };

const at = (x: number): RelBox => ({ x, y: 0.3, w: 0.1, h: 0.4 });
const sighting = (frameIndex: number, x: number, verdicts: Record<string, WearVerdict>): WorkerSighting => ({
  frameIndex,
  timeSec: frameIndex * 0.5,
  worker: 1,
  box: at(x),
  verdicts,
});
const analysis = (workers: WorkerSighting[]): CompositeAnalysis => ({ seen: [], missing: [], notChecked: [], workers, usage: ZERO });
const bare = { pic1: 'not_worn', pic23: 'worn', pic24: 'worn' } as const;
const hat = { pic1: 'worn', pic23: 'worn', pic24: 'worn' } as const;

describe('Findings: one verdict per worker and item, from the whole track (issue 51)', () => {
  it('a worker bare-headed in three of four frames is one violation over the track, with the clearest frame without the hard hat as evidence', () => {
    const f = new Findings([HAT, VEST]);
    f.add(0, analysis([sighting(0, 0.1, hat), sighting(0, 0.6, hat), sighting(1, 0.1, hat), sighting(1, 0.61, bare)]));
    f.add(1, analysis([sighting(2, 0.62, bare), sighting(2, 0.1, hat), { ...sighting(3, 0.6, bare), box: { x: 0.6, y: 0.3, w: 0.12, h: 0.45 } }]));
    expect(f.violations).toEqual([
      { group: HAT, worker: 2, time_sec: 0, end_sec: 1.5, frames: 3, evidence_sec: 1.5, frame_index: 3, composite_index: 1, box: { x: 0.6, y: 0.3, w: 0.12, h: 0.45 }, reason: null, confidence: 0.75 },
    ]);
    expect(f.isViolated(HAT)).toBe(true);
    expect(f.isViolated(VEST)).toBe(false);
    expect(f.workers.map((w) => [w.worker, w.first_sec, w.last_sec, w.frames, w.items['pic1']!.verdict])).toEqual([
      [1, 0, 1, 3, 'worn'],
      [2, 0, 1.5, 4, 'missing'],
    ]);
  });

  it('one blurred, turned or bent frame never raises a violation: a worker seen with the hard hat in four frames and bare in one wears it', () => {
    const f = new Findings([HAT]);
    f.add(0, analysis([sighting(0, 0.3, hat), sighting(1, 0.3, hat), sighting(2, 0.31, bare), sighting(3, 0.3, hat), sighting(4, 0.3, hat)]));
    expect(f.violations).toEqual([]);
    expect(f.workers[0]!.items['pic1']).toEqual({ verdict: 'worn', frames_worn: 4, frames_without: 1, confidence: 0.8 });
  });

  it('a worker who goes without the hard hat for a while only (three frames in a row) is a violation, though most frames show it worn', () => {
    const f = new Findings([HAT]);
    f.add(0, analysis([0, 1, 2, 3, 4].map((i) => sighting(i, 0.3, hat))));
    f.add(1, analysis([sighting(5, 0.3, bare), sighting(6, 0.3, { pic1: 'unknown' }), sighting(7, 0.3, bare), sighting(8, 0.3, bare), sighting(9, 0.3, hat)]));
    expect(f.violations.map((v) => [v.worker, v.frames, v.time_sec, v.end_sec])).toEqual([[1, 3, 0, 4.5]]);
    // Two in a row, broken by a hard hat: not a run of three.
    const g = new Findings([HAT]);
    g.add(0, analysis([0, 1, 2, 3, 4].map((i) => sighting(i, 0.3, hat))));
    g.add(1, analysis([sighting(5, 0.3, bare), sighting(6, 0.3, bare), sighting(7, 0.3, hat), sighting(8, 0.3, bare)]));
    expect(g.violations).toEqual([]);
  });

  it('a worker seen without the item in a single frame (the rest: cannot tell) is "cannot tell", not a violation', () => {
    const f = new Findings([HAT]);
    f.add(0, analysis([sighting(0, 0.3, bare), sighting(1, 0.3, { pic1: 'unknown' }), sighting(2, 0.3, { pic1: 'unknown' })]));
    expect(f.violations).toEqual([]);
    expect(f.workers[0]!.items['pic1']!.verdict).toBe('cannot_tell');
    // Nobody judged for the hard hat: not judged, never missing.
    expect(f.result(RESULT_ARGS).not_judged).toEqual([HAT]);
  });

  it('weighs each frame by how sure the analyzer was: two unsure frames without the hard hat do not outweigh two sure ones with it', () => {
    const f = new Findings([HAT]);
    const sure = (frame: number, verdicts: Record<string, WearVerdict>, p: number) => ({ ...sighting(frame, 0.3, verdicts), confidence: { pic1: p } });
    f.add(0, analysis([sure(0, bare, 0.55), sure(1, hat, 0.99), sure(2, bare, 0.6), sure(3, hat, 0.98)]));
    expect(f.violations).toEqual([]);
    expect(f.workers[0]!.items['pic1']!.verdict).toBe('worn');
  });

  it('a worker whose vest showed reflective tape in as many frames as a violation needs is "cannot tell", though other frames say no vest', () => {
    const noVest = { pic23: 'not_worn', pic24: 'not_worn' } as const;
    const taped = (frame: number) => ({ ...sighting(frame, 0.3, { pic23: 'unknown', pic24: 'unknown' }), undecidable: { pic23: 'reflective_tape', pic24: 'reflective_tape' } as const });
    const f = new Findings([VEST]);
    f.add(0, analysis([taped(0), sighting(1, 0.3, noVest), taped(2), sighting(3, 0.3, noVest), sighting(4, 0.3, noVest), sighting(5, 0.3, noVest), sighting(6, 0.3, noVest)]));
    expect(f.violations).toEqual([]);
    expect(f.workers[0]!.items['pic23,pic24']).toMatchObject({ verdict: 'cannot_tell', frames_without: 5 });
    // Tape in one frame only: the five frames without a vest decide.
    const g = new Findings([VEST]);
    g.add(0, analysis([taped(0), ...[1, 2, 3, 4, 5, 6].map((i) => sighting(i, 0.3, noVest))]));
    expect(g.violations.map((v) => [v.worker, v.frames])).toEqual([[1, 6]]);
    // A very short video decides from one frame: one frame with tape is enough to tell nothing.
    const h = new Findings([VEST]);
    h.add(0, analysis([taped(0), sighting(1, 0.3, noVest)]));
    expect(h.violations).toEqual([]);
    const i = new Findings([VEST]);
    i.add(0, analysis([sighting(0, 0.3, noVest), sighting(1, 0.3, noVest)]));
    expect(i.violations).toHaveLength(1);
  });

  it('a glimpse of the built-in detector (a track of one frame in a shot of many) is not counted as a worker, and raises nothing', () => {
    const f = new Findings([HAT]);
    const site = [0, 1, 2].map((i) => ({ frameIndex: i, look: [1, ...Array.from({ length: 15 }, () => 0)] }));
    f.add(0, { ...analysis([sighting(0, 0.1, hat), sighting(1, 0.1, hat), sighting(2, 0.1, hat), sighting(2, 0.8, bare)]), frameLooks: site });
    expect(f.workersSeen).toBe(1);
    expect(f.violations).toEqual([]);
  });

  it('a worker of a shot sampled once (a cut before and after) is counted, and decided from that frame like a very short video', () => {
    const f = new Findings([HAT]);
    const looks = [0, 1, 2].map((i) => ({ frameIndex: i, look: Array.from({ length: 16 }, (_, b) => (b === i * 5 ? 1 : 0)) }));
    f.add(0, { ...analysis([sighting(0, 0.3, bare), sighting(1, 0.3, hat), sighting(2, 0.3, bare)]), frameLooks: looks });
    expect(f.workersSeen).toBe(3);
    expect(f.violations.map((v) => v.worker)).toEqual([1, 3]);
    expect(f.workers.map((w) => w.items['pic1']!.verdict)).toEqual(['missing', 'worn', 'missing']);
  });

  it('two workers without a hard hat in the same frames are two violations, each with its own number', () => {
    const f = new Findings([HAT]);
    const violated = f.add(0, analysis([sighting(0, 0.1, bare), sighting(0, 0.7, bare), sighting(1, 0.11, bare), sighting(1, 0.69, bare)]));
    expect(f.violations.map((v) => [v.worker, v.frames])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(violated).toEqual([HAT]);
    expect(f.add(1, analysis([sighting(2, 0.1, hat)]))).toEqual([]);
  });

  it('follows workers in the coordinates of the whole video frame when a frame was cropped around them', () => {
    const f = new Findings([HAT]);
    // Frame 0 whole; frame 1 is the right half of the video frame, so x 0.2 there is x 0.6 of the video.
    const cells: CompositeCell[] = [
      { frameIndex: 0, timeSec: 0, x: 0, y: 0, width: 100, height: 100 },
      { frameIndex: 1, timeSec: 0.5, x: 100, y: 0, width: 100, height: 100, region: { x: 0.5, y: 0, w: 0.5, h: 1 } },
    ];
    const cropped = (x: number): WorkerSighting => ({ ...sighting(1, 0, bare), box: { x, y: 0.3, w: 0.2, h: 0.4 } });
    f.add(0, analysis([sighting(0, 0.1, hat), sighting(0, 0.6, bare), cropped(0.2)]), cells);
    // Evidence: the larger sighting, in the cropped frame (its box in that frame's fractions).
    expect(f.violations.map((v) => [v.worker, v.frames, v.frame_index, v.box.x])).toEqual([[2, 2, 1, 0.2]]);
  });

  it(`keeps at most ${MAX_VIOLATIONS_PER_GROUP} violations per group, and the group stays violated`, () => {
    const f = new Findings([HAT]);
    // A new bare-headed worker every two frames, each far from the last one seen.
    const workers = Array.from({ length: MAX_VIOLATIONS_PER_GROUP + 3 }, (_, i) => [sighting(i * 10, (i % 8) * 0.12, bare), sighting(i * 10 + 1, (i % 8) * 0.12, bare)]).flat();
    f.add(0, analysis(workers));
    expect(f.violations).toHaveLength(MAX_VIOLATIONS_PER_GROUP);
    expect(f.result({ jobType: 'x', jobTypeSource: 'manual', jobTypeConfidence: null, modelUsed: 'm', usage: ZERO, estimatedCost: 0, currency: 'USD' }).missing_groups).toEqual([HAT]);
  });
});

const RESULT_ARGS = { jobType: 'genel_saha_girisi', jobTypeSource: 'fallback' as const, jobTypeConfidence: 0, modelUsed: 'baret-offline', usage: ZERO, estimatedCost: 0, currency: 'USD' };

describe('Findings: no worker, no verdict', () => {
  it('a video in which no worker was found: nothing missing, no violation, every checkable group not judged, and the note in both languages', () => {
    const f = new Findings([HAT, VEST, ['pic30']]);
    f.add(0, { seen: [], missing: [], notChecked: ['pic30'], persons: 0, workers: [], usage: ZERO });
    f.add(1, { seen: [], missing: [], notChecked: ['pic30'], persons: 0, workers: [], usage: ZERO });
    const r = f.result(RESULT_ARGS);
    expect(r.no_worker_seen).toBe(true);
    expect(r.workers_seen).toBe(0);
    expect(r.missing_groups).toEqual([]);
    expect(r.violations).toEqual([]);
    expect(r.not_checked).toEqual([HAT, VEST, ['pic30']]);
    expect(r.not_judged).toEqual([HAT, VEST]);
    expect(r.names.en.note).toBe('No worker seen — nothing to judge');
    expect(r.names.tr.note).toBe('Çalışan görülmedi — değerlendirilecek bir şey yok');
  });

  it('workers seen but none judged for a group (too small): that group is not judged, not missing; a group seen worn stays satisfied', () => {
    const f = new Findings([HAT, VEST]);
    f.add(0, { seen: [{ code: 'pic23', frameIndex: 0, timeSec: 0 }], missing: [], notChecked: [], persons: 1, workers: [sighting(0, 0.3, { pic1: 'unknown', pic23: 'worn', pic24: 'worn' })], usage: ZERO });
    const r = f.result(RESULT_ARGS);
    expect(r.no_worker_seen).toBe(false);
    expect(r.names.en).not.toHaveProperty('note');
    expect(r.missing_groups).toEqual([]);
    expect(r.not_judged).toEqual([HAT]);
    expect(r.satisfied_groups).toEqual([VEST]);
  });

  it('an analyzer that says nothing of persons (a vision model that only lists missing codes) still reports what it saw missing', () => {
    const f = new Findings([HAT, VEST]);
    f.add(0, { seen: [{ code: 'pic23' }], missing: ['pic1'], notChecked: [], usage: ZERO });
    const r = f.result(RESULT_ARGS);
    expect(r.workers_seen).toBeNull();
    expect(r.no_worker_seen).toBe(false);
    expect(r.missing_groups).toEqual([HAT]);
    expect(r.not_judged).toEqual([]);
  });

  it('a violation carries what the worker had instead (a cap or hat, a bare head), named in both languages', () => {
    const f = new Findings([HAT]);
    const cap = { ...sighting(0, 0.3, { pic1: 'not_worn' }), reasons: { pic1: 'other_headgear' as const } };
    const head = { ...sighting(0, 0.8, { pic1: 'not_worn' }), reasons: { pic1: 'bare_head' as const } };
    f.add(0, { seen: [], missing: ['pic1'], notChecked: [], persons: 2, workers: [cap, head], usage: ZERO });
    const r = f.result(RESULT_ARGS);
    expect(r.violations.map((v) => v.reason)).toEqual(['other_headgear', 'bare_head']);
    expect(r.names.en.violation_reasons).toEqual(['cap or hat, not a hard hat', 'bare head']);
    expect(r.names.tr.violation_reasons).toEqual(['kep veya şapka, baret değil', 'başı açık']);
  });
});
