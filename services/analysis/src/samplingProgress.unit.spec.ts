import { describe, expect, it } from 'vitest';
import { throttleProgress } from './samplingProgress.js';

/** Feeds `calls` ([ms, done]) of a sampling toward `total` frames; returns what went through. */
function run(total: number, calls: Array<[number, number]>): Array<[number, number]> {
  let clock = 0;
  const out: Array<[number, number]> = [];
  const feed = throttleProgress((done, t) => out.push([done, t]), { now: () => clock });
  for (const [ms, done] of calls) {
    clock = ms;
    feed(done, total);
  }
  return out;
}

describe('sampling progress reports', () => {
  it('says at once that sampling started, then passes a quarter of the way further at once', () => {
    expect(run(24, [[0, 0], [10, 1], [20, 5], [30, 6], [40, 11], [50, 12], [60, 18]])).toEqual([
      [0, 24],
      [6, 24],
      [12, 24],
      [18, 24],
    ]);
  });

  it('passes smaller steps only a second after the last report, and only a tenth further', () => {
    // 15 at 0.5 s: too soon; 16 at 1 s: due; 24 at 2.3 s: only 8 % further; 28 at 2.4 s: due
    expect(run(100, [[0, 0], [500, 15], [1000, 16], [1100, 17], [1200, 19], [2300, 24], [2400, 28]])).toEqual([
      [0, 100],
      [16, 100],
      [28, 100],
    ]);
  });

  it('never steps back, never reports the end (frames_sampled does), never more than 10 per sampling', () => {
    expect(run(4, [[0, 0], [2000, 2], [4000, 1], [6000, 2], [8000, 4]])).toEqual([
      [0, 4],
      [2, 4],
    ]);
    // one call per frame of a 1000-frame sampling over 100 s: 10 reports at most
    const calls = Array.from({ length: 1000 }, (_, i): [number, number] => [i * 100, i]);
    const out = run(1000, calls);
    expect(out.length).toBe(10);
    expect(out.map(([done]) => done)).toEqual([...out.map(([done]) => done)].sort((a, b) => a - b));
    expect(out.every(([done, total]) => done < total)).toBe(true);
  });
});
