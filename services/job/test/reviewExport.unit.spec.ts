import { describe, expect, it } from 'vitest';
import { jpegSize } from '@baret/platform';
import { exportClass, exportSamples, labelLine } from '../src/reviewExport.js';
import { HAT, RESULT, VEST } from './fixtures/reviewResult.js';

const numbers = (line: string) => line.split(' ').map(Number);

describe('the reviewed set (issue 53)', () => {
  it('labels a hard hat or a vest by the reviewed verdict, nothing else', () => {
    expect(exportClass(HAT.split(','), 'worn')).toBe(0);
    expect(exportClass(HAT.split(','), 'missing')).toBe(2);
    expect(exportClass(VEST.split(','), 'worn')).toBe(1);
    expect(exportClass(VEST.split(','), 'missing')).toBe(3);
    expect(exportClass(HAT.split(','), 'not_a_worker')).toBeNull();
    expect(exportClass(HAT.split(','), 'cannot_tell')).toBeNull();
    expect(exportClass(['pic5'], 'missing')).toBeNull();
  });

  it('places the head at the top of the worker in the crop, the torso below it, inside the image', () => {
    // A worker in the middle of the frame: the crop has margins on every side.
    const box = { x: 0.4, y: 0.2, w: 0.2, h: 0.6 };
    const [cls, cx, cy, w, h] = numbers(labelLine(2, box, { width: 300, height: 480 })) as [number, number, number, number, number];
    expect(cls).toBe(2);
    expect(cx).toBeCloseTo(0.5, 3);
    // The worker starts 0.15/1.3 of the crop down; the head is in the top third.
    expect(cy - h / 2).toBeCloseTo(0.15 / 1.3, 3);
    expect(cy).toBeLessThan(0.33);
    expect(w).toBeGreaterThan(0);
    const [, tx, ty] = numbers(labelLine(3, box, { width: 300, height: 480 })) as [number, number, number];
    expect(tx).toBeCloseTo(0.5, 3);
    expect(ty).toBeGreaterThan(cy);
    // A worker at the frame's top-left corner: no margin there, the box still inside.
    for (const v of numbers(labelLine(0, { x: 0, y: 0, w: 0.3, h: 0.9 }, { width: 200, height: 480 })).slice(1)) {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(1);
    }
  });

  it('takes only violations a review stands for, with their reviewed verdict', () => {
    const job = { id: 'j1', result: RESULT, reviews: [] };
    expect(exportSamples(job)).toEqual([]);
    const review = (verdict: 'confirmed' | 'worn' | 'not_a_worker') => ({ worker: 1, group: HAT, verdict, model_verdict: 'missing' }) as never;
    expect(exportSamples({ ...job, reviews: [review('confirmed')] })).toMatchObject([{ stem: 'j1-0', n: 0, cls: 2, reviewed_verdict: 'missing' }]);
    expect(exportSamples({ ...job, reviews: [review('confirmed'), review('worn')] })).toMatchObject([{ cls: 0, reviewed_verdict: 'worn' }]);
    expect(exportSamples({ ...job, reviews: [review('not_a_worker')] })).toEqual([]);
  });

  it('reads a JPEG’s size', () => {
    // SOI, then SOF0 with height 480 and width 202.
    const sof = Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x00, 0xca, 0x03]);
    expect(jpegSize(Buffer.concat([sof, Buffer.alloc(8)]))).toEqual({ width: 202, height: 480 });
    expect(jpegSize(Buffer.from([0x00, 0x01]))).toBeUndefined();
  });
});
