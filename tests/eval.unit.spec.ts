import { describe, expect, it } from 'vitest';
import { addConfusion, applyRelabel, emptyConfusion, formatConfusion, formatWorkerTable, headConfusion, headVerdictUnder, matchLabels, measuresFor, predictionOf, progressBar, tally, tallyWorkers, truthOf, workerOutcome } from '../scripts/eval/measure.js';
import { parseYoloLabels } from '../scripts/yolo.js';
import { predictMlp, type MlpModel } from '../services/analysis/src/engine/ppeModel.js';

describe('YOLO label parsing', () => {
  it('reads boxes as [x, y, w, h] from centre and size', () => {
    const [o] = parseYoloLabels('2 0.5 0.4 0.2 0.1\n');
    expect(o!.cls).toBe(2);
    expect(o!.box[0]).toBeCloseTo(0.4);
    expect(o!.box[1]).toBeCloseTo(0.35);
    expect(o!.box[2]).toBeCloseTo(0.2);
    expect(o!.box[3]).toBeCloseTo(0.1);
  });

  it('reads polygons as their bounding box', () => {
    const [o] = parseYoloLabels('0 0.1 0.2 0.5 0.2 0.4 0.6 0.2 0.5');
    expect(o!.cls).toBe(0);
    expect(o!.box.map((v) => Number(v.toFixed(6)))).toEqual([0.1, 0.2, 0.4, 0.4]);
  });

  it('skips blank, short, non-numeric and degenerate lines, and handles CRLF', () => {
    const objs = parseYoloLabels('\r\n1 0.5 0.5 0.1 0.1\r\nfoo 1 2 3 4\n3 0.5 0.5\n4 0.5 0.5 0 0.2\n-1 0.5 0.5 0.1 0.1\n5 0.1 0.1 0.2 0.2 0.3\n');
    expect(objs.map((o) => o.cls)).toEqual([1]);
  });
});

describe('image-level measures', () => {
  const cls = { helmet: 0, bareHead: [2], vest: 1, noVest: 3 };

  it('leaves out a measure whose classes were not given', () => {
    expect(measuresFor({ helmet: 0, bareHead: [2] })).toEqual(['hard hat worn', 'hard hat not worn']);
    expect(Object.keys(truthOf('0 0.5 0.5 0.1 0.1', { helmet: 0, bareHead: [2] }))).toEqual(['hard hat worn', 'hard hat not worn']);
  });

  it('"not worn" needs a bare-head box and no hard-hat box; other classes are ignored', () => {
    expect(truthOf('2 0.5 0.5 0.1 0.1\n7 0.5 0.5 0.1 0.1', cls)).toEqual({
      'hard hat worn': false,
      'hard hat not worn': true,
      'hi-vis worn': false,
      'hi-vis not worn': false,
    });
    expect(truthOf('2 0.5 0.5 0.1 0.1\n0 0.2 0.2 0.1 0.1\n3 0.5 0.5 0.3 0.3', cls)).toEqual({
      'hard hat worn': true,
      'hard hat not worn': false,
      'hi-vis worn': false,
      'hi-vis not worn': true,
    });
    expect(truthOf('', cls)['hard hat not worn']).toBe(false);
  });

  it('predicts with the same rule on the workers', () => {
    const all = measuresFor(cls);
    expect(predictionOf([{ hardHat: 'bare', hiVis: 'absent' }, { hardHat: 'unknown', hiVis: 'unknown' }], all)).toEqual({
      'hard hat worn': false,
      'hard hat not worn': true,
      'hi-vis worn': false,
      'hi-vis not worn': true,
    });
    expect(predictionOf([{ hardHat: 'bare', hiVis: 'seen' }, { hardHat: 'seen', hiVis: 'absent' }], all)).toEqual({
      'hard hat worn': true,
      'hard hat not worn': false,
      'hi-vis worn': true,
      'hi-vis not worn': false,
    });
    expect(predictionOf([], ['hard hat worn'])).toEqual({ 'hard hat worn': false });
  });

  it('counts true and false positives and negatives into precision and recall', () => {
    const t = (v: boolean) => ({ 'hard hat worn': v });
    const outcomes = [
      { truth: t(true), predicted: t(true) },
      { truth: t(true), predicted: t(true) },
      { truth: t(true), predicted: t(true) },
      { truth: t(false), predicted: t(true) },
      { truth: t(true), predicted: t(false) },
      { truth: t(false), predicted: t(false) },
    ];
    expect(tally(outcomes, ['hard hat worn'])).toEqual({ 'hard hat worn': { precision: 0.75, recall: 0.75, tp: 3, fp: 1, fn: 1 } });
    expect(tally([{ truth: t(false), predicted: t(false) }], ['hard hat worn'])['hard hat worn']).toEqual({ precision: null, recall: null, tp: 0, fp: 0, fn: 0 });
  });

  it('matches each worker to the labelled head at the top of its box and the torso in its middle, one label per worker', () => {
    // Two workers side by side; heads at their tops, torsos at their middles; a head far below the first worker belongs to neither.
    const workers = [
      [0, 0, 100, 300],
      [100, 0, 100, 300],
    ] as const;
    const heads = [
      [130, 5, 40, 40], // second worker's head
      [30, 0, 40, 40], // first worker's head
      [30, 200, 40, 40], // too low to be a head of the first worker
    ] as const;
    expect(matchLabels(workers, heads, 'head')).toEqual([1, 0]);
    const torsos = [
      [10, 60, 80, 120],
      [110, 60, 80, 120],
    ] as const;
    expect(matchLabels(workers, torsos, 'torso')).toEqual([0, 1]);
    // A label already taken goes to no second worker.
    expect(matchLabels([workers[0], [5, 0, 100, 300]], [heads[1]], 'head').filter((m) => m !== undefined)).toHaveLength(1);
  });

  it('matches a close-up by the head its verdict judged, where the head fills the worker box', () => {
    // A face filling the photo: the worker box is the head and shoulders, the labelled head's centre
    // lies halfway down it — below the box rule's top third — but on the head the analyzer judged.
    const worker = [[10, 10, 600, 620]] as const;
    const label = [[2, 4, 600, 600]] as const;
    expect(matchLabels(worker, label, 'head')).toEqual([undefined]);
    expect(matchLabels(worker, label, 'head', [[150, 120, 330, 430]])).toEqual([0]);
    // A judged head elsewhere in the photo does not take a label far from it.
    expect(matchLabels(worker, [[20, 560, 40, 40]], 'head', [[150, 120, 330, 430]])).toEqual([undefined]);
    // Torsos keep the box rule alone.
    expect(matchLabels(worker, label, 'torso', [[150, 120, 330, 430]])).toEqual([0]);
  });

  it('counts per worker the violation verdicts that the worker\'s own label confirms, contradicts, or cannot check', () => {
    // A 200 × 300 image: a worker labelled with a hard hat and a vest, and one labelled bare-headed without a vest.
    const labels = ['0 0.25 0.0667 0.2 0.1333', '1 0.25 0.4 0.4 0.4', '2 0.75 0.0667 0.2 0.1333', '3 0.75 0.4 0.4 0.4'].join('\n');
    const persons = [
      { box: [0, 0, 100, 300] as [number, number, number, number], hardHat: 'bare' as const, hiVis: 'absent' as const }, // both verdicts wrong
      { box: [100, 0, 100, 300] as [number, number, number, number], hardHat: 'bare' as const, hiVis: 'absent' as const }, // both right
      { box: [0, 250, 30, 50] as [number, number, number, number], hardHat: 'bare' as const, hiVis: 'seen' as const }, // nobody labelled there
    ];
    const one = workerOutcome(persons, labels, cls, 200, 300);
    expect(one['no hard hat']).toEqual({ confirmed: 1, falseAlarms: 1, unmatched: 1, labelled: 1 });
    expect(one['no hi-vis']).toEqual({ confirmed: 1, falseAlarms: 1, unmatched: 0, labelled: 1 });
    // Classes not given: no per-worker measure.
    expect(workerOutcome(persons, labels, { helmet: 0, bareHead: [2] }, 200, 300)['no hi-vis']).toBeUndefined();
    const all = tallyWorkers([{ workers: one }, { workers: { 'no hard hat': { confirmed: 2, falseAlarms: 0, unmatched: 0, labelled: 3 } } }]);
    expect(all['no hard hat']).toEqual({ confirmed: 3, falseAlarms: 1, unmatched: 1, labelled: 4, precision: 0.75, recall: 0.75 });
    expect(all['no hi-vis']!.precision).toBe(0.5);
    expect(formatWorkerTable(all)).toMatch(/no hard hat\s+5\s+3\s+1\s+1\s+4\s+75\.0%\s+75\.0%/);
  });

  it('counts caps and bare heads together as "no hard hat", and tabulates each labelled head by its worker\'s verdict', () => {
    // hard-hat-or-headwear's classes: 0 hard hat, 1 other headgear (cap), 2 bare head. A 300 × 300
    // image: a worker in a hard hat, one in a cap, one bare-headed, and a capped head nobody found.
    const labels = ['0 0.1667 0.0667 0.2 0.1333', '1 0.5 0.0667 0.2 0.1333', '2 0.8333 0.0667 0.2 0.1333', '1 0.5 0.8 0.05 0.05'].join('\n');
    const box = (x: number): [number, number, number, number] => [x, 0, 100, 200];
    const persons = [
      { box: box(0), hardHat: 'seen' as const, hiVis: 'unknown' as const },
      { box: box(100), hardHat: 'headgear' as const, hiVis: 'unknown' as const },
      { box: box(200), hardHat: 'unknown' as const, hiVis: 'unknown' as const },
    ];
    const cls = { helmet: 0, bareHead: [1, 2], otherHeadgear: 1 };
    expect(truthOf(labels, cls)['hard hat not worn']).toBe(false); // a hard hat is in the photo too
    expect(truthOf('1 0.5 0.5 0.1 0.1', cls)['hard hat not worn']).toBe(true); // a cap alone: no hard hat
    expect(predictionOf([persons[1]!], ['hard hat not worn'])).toEqual({ 'hard hat not worn': true });
    expect(workerOutcome(persons, labels, cls, 300, 300)['no hard hat']).toEqual({ confirmed: 1, falseAlarms: 0, unmatched: 0, labelled: 3 });
    const table = headConfusion(persons, labels, cls, 300, 300)!;
    expect(table['hard hat']).toMatchObject({ 'hard hat': 1, 'other headgear': 0, 'not found': 0 });
    expect(table['other headgear']).toMatchObject({ 'other headgear': 1, 'not found': 1 });
    expect(table.bare).toMatchObject({ 'cannot tell': 1, bare: 0 });
    expect(headConfusion(persons, labels, { helmet: 0, bareHead: [1, 2] }, 300, 300)).toBeNull();
    expect(formatConfusion(addConfusion(emptyConfusion(), table))).toMatch(/other headgear\s+0\s+1\s+0\s+0\s+1/);
  });

  it('applies label corrections line by line, and refuses one whose line is gone', () => {
    const relabel = { changes: [{ file: 'a.txt', from: '3 0.5 0.5 0.2 0.4', to: 1, why: 'a fluorescent vest without tape' }] };
    expect(applyRelabel('a.txt', '0 0.1 0.1 0.1 0.1\n3 0.5 0.5 0.2 0.4\n', relabel)).toBe('0 0.1 0.1 0.1 0.1\n1 0.5 0.5 0.2 0.4\n');
    expect(applyRelabel('b.txt', '3 0.5 0.5 0.2 0.4', relabel)).toBe('3 0.5 0.5 0.2 0.4');
    expect(() => applyRelabel('a.txt', '3 0.6 0.5 0.2 0.4', relabel)).toThrow(/not found in a.txt/);
  });

  it('re-judges a head under another verdict rule: a stricter hard hat, a margin over other headgear, a lighter "other"', () => {
    const shipped = { hat: 0.5, noHat: 0.83, margin: 0, otherScale: 1 };
    const cap: [number, number, number] = [0.62, 0, 0.38];
    expect(headVerdictUnder(cap, shipped)).toBe('seen');
    expect(headVerdictUnder(cap, { ...shipped, hat: 0.7 })).toBe('unknown');
    expect(headVerdictUnder(cap, { ...shipped, margin: 0.5 })).toBe('unknown');
    expect(headVerdictUnder([0.04, 0.0, 0.96], shipped)).toBe('headgear');
    expect(headVerdictUnder([0.04, 0.9, 0.06], shipped)).toBe('bare');
    // p(other) × 0.25 renormalised: 0.2 / (0.2 + 0.2) = 0.5 — the hard hat wins back.
    expect(headVerdictUnder([0.2, 0, 0.8], shipped)).toBe('unknown');
    expect(headVerdictUnder([0.2, 0, 0.8], { ...shipped, otherScale: 0.25 })).toBe('seen');
  });

  it('draws a progress bar', () => {
    expect(progressBar(5, 10, 'a.jpg', 10)).toContain('[#####.....] 5/10 a.jpg');
  });
});

describe('MLP forward pass', () => {
  it('standardises, applies relu hidden layers and a softmax output', () => {
    const model: MlpModel = {
      classes: ['a', 'b'],
      featureMean: [1, 0],
      featureStd: [2, 1],
      layers: [
        { weights: [[1, 0], [0, -1]], bias: [0, 0] },
        { weights: [[1, 0], [0, 1]], bias: [0, 0.5] },
      ],
    };
    // x = ((3-1)/2, 2) = (1, 2); hidden = relu(1, -2) = (1, 0); logits = (1, 0.5).
    const p = predictMlp(model, [3, 2]);
    expect(p[0]).toBeCloseTo(Math.exp(1) / (Math.exp(1) + Math.exp(0.5)), 10);
    expect(p[0]! + p[1]!).toBeCloseTo(1, 12);
  });
});
