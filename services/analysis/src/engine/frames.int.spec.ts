import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../../test/fixtures/videos.js';
import { type DetectFn, samplePersonFocus, sampleUniform, type SamplingStrategy, sharpness } from './frames.js';
import { probeVideo, type ProbedVideo } from './probe.js';
import type { PersonDetection, SampledFrame } from './types.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
const v: Record<string, { path: string; info: ProbedVideo }> = {};
let photos: string[] = [];

const add = async (key: string, path: Promise<string>) => {
  const p = await path;
  v[key] = { path: p, info: await probeVideo(p) };
};
const vid = (key: string) => v[key] as { path: string; info: ProbedVideo };

beforeAll(async () => {
  fx = await videoFixtures();
  const slideshow = fx.photos('photos.mp4', 12);
  await Promise.all([
    add('ten', fx.testsrc('ten.mp4', { seconds: 10, gop: 40 })),
    add('onekey', fx.testsrc('onekey.mp4', { seconds: 10, gop: 1000 })),
    add('hd', fx.testsrc('hd.mp4', { seconds: 2, size: '1920x1080', fps: 10, gop: 10 })),
    add('tiny', fx.testsrc('tiny.mp4', { seconds: 0.4, fps: 10, gop: 10 })),
    add('photos', slideshow.then((s) => s.path)),
  ]);
  photos = (await slideshow).photos;
  await add('rot', fx.rotated(vid('ten').path, 'rot.mp4'));
});
afterAll(() => fx.dispose());

/** Common invariants: count, chronological and distinct times within the video, decodable JPEGs of the declared size. */
async function expectGoodFrames(frames: SampledFrame[], count: number, durationSec: number, maxSide = 1280) {
  expect(frames).toHaveLength(count);
  frames.forEach((f, i) => expect(f.index).toBe(i));
  for (let i = 1; i < frames.length; i++) {
    expect(frames[i]!.timeSec).toBeGreaterThan(frames[i - 1]!.timeSec);
  }
  for (const f of frames) {
    expect(f.timeSec).toBeGreaterThanOrEqual(0);
    expect(f.timeSec).toBeLessThan(durationSec);
    const meta = await sharp(f.jpeg).metadata();
    expect(meta.format).toBe('jpeg');
    expect([meta.width, meta.height]).toEqual([f.width, f.height]);
    expect(Math.max(f.width, f.height)).toBeLessThanOrEqual(maxSide);
  }
}

/** Each frame lies in its own equal-width bin of the duration: evenly spread. */
function expectSpread(frames: SampledFrame[], durationSec: number) {
  const step = durationSec / frames.length;
  frames.forEach((f, i) => {
    expect(f.timeSec).toBeGreaterThanOrEqual(i * step - 0.05);
    expect(f.timeSec).toBeLessThan((i + 1) * step);
  });
}

const STRATEGIES: SamplingStrategy[] = ['keyframes', 'select', 'seek'];

describe('sampleUniform', () => {
  it.each(STRATEGIES)('%s: 6 evenly spread distinct frames from a 10 s video with a keyframe every 1.6 s', async (strategy) => {
    const { path, info } = vid('ten');
    const frames = await sampleUniform(path, info, 6, { strategy });
    await expectGoodFrames(frames, 6, info.durationSec);
    expectSpread(frames, info.durationSec);
    expect(frames[0]).toMatchObject({ width: 320, height: 240 });
  });

  it('keyframes: uses keyframes where they are near the targets (times on the 1.6 s keyframe grid)', async () => {
    const { path, info } = vid('ten');
    const frames = await sampleUniform(path, info, 5, { strategy: 'keyframes' });
    // Targets 1, 3, 5, 7, 9 with tolerance 0.8 s: keyframes 0.0/1.6/3.2/4.8/6.4/8.0/9.6 → 1.6 (0.6 away), 3.2, 4.8, 6.4, 9.6.
    expect(frames.map((f) => f.timeSec)).toEqual([1.6, 3.2, 4.8, 6.4, 9.6]);
  });

  it.each(STRATEGIES)('%s: still returns distinct spread frames from a video with a single keyframe', async (strategy) => {
    const { path, info } = vid('onekey');
    const frames = await sampleUniform(path, info, 8, { strategy });
    await expectGoodFrames(frames, 8, info.durationSec);
    expectSpread(frames, info.durationSec);
  });

  it('caps the long side at 1280 px for a 1080p video', async () => {
    const { path, info } = vid('hd');
    const frames = await sampleUniform(path, info, 4);
    await expectGoodFrames(frames, 4, info.durationSec);
    expect(frames.every((f) => f.width === 1280 && f.height === 720)).toBe(true);
  });

  it('returns upright frames for a rotated phone video', async () => {
    const { path, info } = vid('rot');
    const frames = await sampleUniform(path, info, 3);
    await expectGoodFrames(frames, 3, info.durationSec);
    expect(frames.every((f) => f.width === 240 && f.height === 320)).toBe(true);
  });

  it.each([
    ['keyframes', 'ten'],
    ['keyframes', 'onekey'],
    ['select', 'ten'],
    ['seek', 'ten'],
  ] as const)('%s (%s): reports progress frame by frame (counted from ffmpeg showinfo lines), from 0 up to the frame before the last', async (strategy, key) => {
    const { path, info } = vid(key);
    const calls: Array<[number, number]> = [];
    const frames = await sampleUniform(path, info, 6, { strategy, onProgress: (done, total) => calls.push([done, total]) });
    expect(frames).toHaveLength(6);
    expect(calls).toEqual([0, 1, 2, 3, 4, 5].map((done) => [done, 6]));
  });

  it('reports progress toward the frames the video can give when asked for more', async () => {
    const { path, info } = vid('tiny');
    const calls: Array<[number, number]> = [];
    await sampleUniform(path, info, 10, { onProgress: (done, total) => calls.push([done, total]) });
    expect(calls).toEqual([0, 1, 2, 3].map((done) => [done, 4]));
  });

  it('returns every frame, not duplicates, when asked for more frames than the video has', async () => {
    const { path, info } = vid('tiny');
    const frames = await sampleUniform(path, info, 10);
    await expectGoodFrames(frames, 4, info.durationSec);
  });

  it.each([
    ['keyframes', 5],
    ['keyframes', 7],
    ['select', 7],
    ['seek', 7],
  ] as const)('%s (%i frames): each frame shows the photo on screen at its time', async (strategy, count) => {
    const { path, info } = vid('photos');
    const frames = await sampleUniform(path, info, count, { strategy });
    await expectGoodFrames(frames, count, info.durationSec);
    const refs = await Promise.all(photos.map(thumb));
    for (const f of frames) {
      const t = await thumb(f.jpeg);
      const distances = refs.map((r) => meanAbsDiff(r, t));
      const best = distances.indexOf(Math.min(...distances));
      expect({ time: f.timeSec, photo: best }).toEqual({ time: f.timeSec, photo: Math.floor(f.timeSec * 2 + 1e-6) });
    }
  });
});

describe('sharpness', () => {
  it('is higher for a sharp image than for its blurred version', async () => {
    const { path, info } = vid('photos');
    const [frame] = await sampleUniform(path, info, 1);
    const blurred = await sharp(frame!.jpeg).blur(4).jpeg().toBuffer();
    expect(await sharpness(frame!.jpeg)).toBeGreaterThan(2 * (await sharpness(blurred)));
  });
});

describe('samplePersonFocus', () => {
  /** Fake detector: the bounding box of red pixels, found on a half-size copy (so boxes must be scaled back). */
  const redDetector: DetectFn = async (jpeg) => {
    const { data, info } = await sharp(jpeg)
      .resize({ width: 320 })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    let x0 = Infinity, y0 = Infinity, x1 = -1, y1 = -1;
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width; x++) {
        const i = (y * info.width + x) * 3;
        if (data[i]! > 170 && data[i + 1]! < 90 && data[i + 2]! < 90) {
          x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
        }
      }
    }
    const persons: PersonDetection[] = x1 < 0 ? [] : [{ box: [x0, y0, x1 - x0 + 1, y1 - y0 + 1], score: 0.9, keypoints: [{ part: 'nose', x: x0, y: y0, score: 0.9 }] }];
    return { width: info.width, height: info.height, persons };
  };

  it('covers every stretch of the video, prefers frames where the worker is large, keeps order, crops small workers', async () => {
    const path = await fx.worker('worker.mp4', { large: { from: 4, to: 6 } });
    const info = await probeVideo(path);
    const frames = await samplePersonFocus(path, info, 3, redDetector, { candidatesPerFrame: 4 });
    expect(frames).toHaveLength(3);
    frames.forEach((f, i) => expect(f.index).toBe(i));
    const times = frames.map((f) => f.timeSec);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // Coverage: one frame in each third of the 12 s video, however good the others are.
    expect(times.map((t) => Math.floor(t / 4))).toEqual([0, 1, 2]);

    const large = frames.filter((f) => f.timeSec >= 4 && f.timeSec < 6);
    const small = frames.filter((f) => f.timeSec < 4 || f.timeSec >= 6);
    // In the middle third the large worker (4–6 s) wins over the small one (6–8 s).
    expect(large).toHaveLength(1);
    for (const f of frames) expect(f.persons).toHaveLength(1);
    for (const l of large) {
      expect([l.width, l.height]).toEqual([640, 360]);
      expect(l.region).toBeUndefined(); // not cropped: it shows the whole video frame
      const [x, y, w, h] = l.persons![0]!.box;
      expect(Math.abs(x - 240)).toBeLessThanOrEqual(4);
      expect(Math.abs(y - 30)).toBeLessThanOrEqual(4);
      expect(Math.abs(w - 160)).toBeLessThanOrEqual(4);
      expect(Math.abs(h - 300)).toBeLessThanOrEqual(4);
      for (const s of small) expect(l.score!).toBeGreaterThan(s.score!);
    }
    // The small worker (24×48 at 500,40 in a 640×360 frame) is cropped so it appears larger.
    for (const s of small) {
      expect(s.width).toBeLessThan(640);
      expect(s.width / s.height).toBeCloseTo(640 / 360, 1);
      const meta = await sharp(s.jpeg).metadata();
      expect([meta.width, meta.height]).toEqual([s.width, s.height]);
      const [x, y, w, h] = s.persons![0]!.box;
      expect(x).toBeGreaterThanOrEqual(0);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(x + w).toBeLessThanOrEqual(s.width + 1);
      expect(y + h).toBeLessThanOrEqual(s.height + 1);
      expect((w * h) / (s.width * s.height)).toBeGreaterThan((24 * 48) / (640 * 360) * 2);
      // The frame says which part of the video frame it shows: mapped back, the box is the worker's (500,40 24×48).
      const r = s.region!;
      expect(r.w).toBeCloseTo(s.width / 640, 3);
      expect(r.h).toBeCloseTo(s.height / 360, 3);
      expect(Math.abs((r.x + (x / s.width) * r.w) * 640 - 500)).toBeLessThanOrEqual(4);
      expect(Math.abs((r.y + (y / s.height) * r.h) * 360 - 40)).toBeLessThanOrEqual(4);
      // The crop really shows the worker: the box region is red.
      const { data } = await sharp(s.jpeg)
        .extract({ left: Math.round(x + w / 2) - 2, top: Math.round(y + h / 2) - 2, width: 4, height: 4 })
        .removeAlpha().raw().toBuffer({ resolveWithObject: true });
      expect(data[0]!).toBeGreaterThan(150);
    }
  });

  it('prefers sharp frames among frames with equally large workers', async () => {
    const path = await fx.worker('blurred.mp4', { large: { from: 4, to: 8 }, blur: { from: 4, to: 6 } });
    const info = await probeVideo(path);
    const [frame] = await samplePersonFocus(path, info, 1, redDetector, { candidatesPerFrame: 12 });
    expect(frame!.timeSec).toBeGreaterThanOrEqual(6);
    expect(frame!.timeSec).toBeLessThan(8);
  });

  it('reports progress while decoding and scoring the candidates (half the work each, at once), in frames asked; scores each candidate once', async () => {
    const { path, info } = vid('ten');
    const calls: Array<[number, number]> = [];
    const jpegs: Buffer[] = [];
    const counting: DetectFn = async (jpeg) => {
      jpegs.push(jpeg);
      return { width: 320, height: 240, persons: [] };
    };
    await samplePersonFocus(path, info, 4, counting, {
      candidatesPerFrame: 2,
      parallel: 1,
      onProgress: (done, total) => calls.push([done, total]),
    });
    expect(calls.every(([done, total]) => total === 4 && done >= 0 && done < 4)).toBe(true);
    expect(calls.map(([done]) => done)).toEqual([...calls.map(([done]) => done)].sort((a, b) => a - b));
    expect(calls[0]).toEqual([0, 4]);
    // 8 candidates decoded and 7 of 8 scored: ⌊4 × 15/16⌋ (the 8th is the end, not progress).
    expect(calls.at(-1)).toEqual([3, 4]);
    expect(jpegs).toHaveLength(8);
    expect(new Set(jpegs).size).toBe(8);
  });

  it('still returns spread frames when nobody is detected', async () => {
    const { path, info } = vid('ten');
    const frames = await samplePersonFocus(path, info, 4, async () => ({ width: 320, height: 240, persons: [] }));
    await expectGoodFrames(frames, 4, info.durationSec);
    for (let i = 1; i < frames.length; i++) expect(frames[i]!.timeSec - frames[i - 1]!.timeSec).toBeGreaterThanOrEqual(1.24);
    expect(frames.every((f) => f.persons?.length === 0 && typeof f.score === 'number')).toBe(true);
  });
});

async function thumb(input: Buffer | string): Promise<Buffer> {
  return sharp(input).resize(48, 48, { fit: 'fill' }).greyscale().raw().toBuffer();
}

function meanAbsDiff(a: Buffer, b: Buffer): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i]! - b[i]!);
  return s / a.length;
}
