import { describe, expect, it } from 'vitest';
import { measuresFor, predictionOf, progressBar, tally, truthOf } from '../scripts/eval/measure.js';
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
  const cls = { helmet: 0, bareHead: 2, vest: 1, noVest: 3 };

  it('leaves out a measure whose classes were not given', () => {
    expect(measuresFor({ helmet: 0, bareHead: 2 })).toEqual(['hard hat worn', 'hard hat not worn']);
    expect(Object.keys(truthOf('0 0.5 0.5 0.1 0.1', { helmet: 0, bareHead: 2 }))).toEqual(['hard hat worn', 'hard hat not worn']);
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
