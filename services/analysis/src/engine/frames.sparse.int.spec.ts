/**
 * Every setting the form allows (1–20 composites × 2–8 frames, uniform and person sampling) on
 * long videos whose keyframes are 10 s apart: nearly every target needs accurate decoding, so
 * the frame selection has as many terms as there are targets (480 candidates for person 20 × 8).
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../../test/fixtures/videos.js';
import { listKeyframes, samplePersonFocus, sampleUniform, sumExpression, type DetectFn } from './frames.js';
import { probeVideo, type ProbedVideo } from './probe.js';
import type { SampledFrame } from './types.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
const videos: Record<string, { path: string; info: ProbedVideo }> = {};

/** A detector that finds nobody: person sampling then ranks by sharpness and spread only. */
const nobody: DetectFn = async () => ({ width: 1, height: 1, persons: [] });

beforeAll(async () => {
  fx = await videoFixtures();
  const make = async (key: string, path: Promise<string>) => {
    const p = await path;
    videos[key] = { path: p, info: await probeVideo(p) };
  };
  // 60 s at 25 fps, a keyframe every 250 frames (10 s).
  await Promise.all([
    make('small', fx.testsrc('sparse-small.mp4', { seconds: 60, size: '320x180', gop: 250, preset: 'ultrafast' })),
    make('hd', fx.testsrc('sparse-1080p.mp4', { seconds: 60, size: '1920x1080', gop: 250, preset: 'ultrafast' })),
    // And the opposite: a keyframe every 0.2 s, so that all 160 targets are keyframes.
    make('dense', fx.testsrc('dense-small.mp4', { seconds: 60, size: '320x180', gop: 5, preset: 'ultrafast' })),
  ]);
}, 180_000);
afterAll(() => fx.dispose());

const video = (key: string) => videos[key] as { path: string; info: ProbedVideo };

async function expectGood(frames: SampledFrame[], count: number, durationSec: number) {
  expect(frames).toHaveLength(count);
  for (let i = 1; i < frames.length; i++) expect(frames[i]!.timeSec).toBeGreaterThan(frames[i - 1]!.timeSec);
  expect(frames[0]!.timeSec).toBeGreaterThanOrEqual(0);
  expect(frames.at(-1)!.timeSec).toBeLessThan(durationSec);
  for (const f of [frames[0]!, frames.at(-1)!]) expect((await sharp(f.jpeg).metadata()).format).toBe('jpeg');
}

function expectSpread(frames: SampledFrame[], durationSec: number) {
  const step = durationSec / frames.length;
  frames.forEach((f, i) => {
    expect(f.timeSec).toBeGreaterThanOrEqual(i * step - 0.05);
    expect(f.timeSec).toBeLessThan((i + 1) * step);
  });
}

describe('a balanced selection expression', () => {
  it('sums any number of terms with nesting only log2(n) deep', () => {
    expect(sumExpression([])).toBe('0');
    expect(sumExpression(['a'])).toBe('a');
    expect(sumExpression(['a', 'b', 'c'])).toBe('((a)+(b))+(c)');
    const expr = sumExpression(Array.from({ length: 480 }, (_, i) => `t${i}`));
    let depth = 0;
    let max = 0;
    for (const ch of expr) {
      if (ch === '(') max = Math.max(max, ++depth);
      if (ch === ')') depth--;
    }
    expect(max).toBeLessThanOrEqual(Math.ceil(Math.log2(480)));
  });
});

describe('sampling a 60 s video with keyframes 10 s apart', () => {
  it('has sparse keyframes indeed', async () => {
    expect(await listKeyframes(video('small').path)).toEqual([0, 10, 20, 30, 40, 50]);
  });

  it.each([
    [1, 2],
    [20, 8],
    [9, 4],
    [6, 4],
  ])('uniform %i × %i gives every frame, evenly spread', async (composites, per) => {
    const { path, info } = video('small');
    const frames = await sampleUniform(path, info, composites * per);
    await expectGood(frames, composites * per, info.durationSec);
    expectSpread(frames, info.durationSec);
  }, 120_000);

  it.each([
    [1, 2],
    [9, 4],
    [20, 8],
  ])('person %i × %i gives every frame', async (composites, per) => {
    const { path, info } = video('small');
    const frames = await samplePersonFocus(path, info, composites * per, nobody);
    await expectGood(frames, composites * per, info.durationSec);
  }, 180_000);

  it('keyframes 0.2 s apart: uniform 20 × 8 selects 160 keyframes in one pass', async () => {
    const { path, info } = video('dense');
    const frames = await sampleUniform(path, info, 160);
    await expectGood(frames, 160, info.durationSec);
    expectSpread(frames, info.durationSec);
    // Every frame is a keyframe (on the 0.2 s grid): none needed accurate decoding.
    for (const f of frames) expect(Math.abs(f.timeSec * 5 - Math.round(f.timeSec * 5))).toBeLessThan(1e-3);
  }, 120_000);

  it('1080p: uniform 20 × 8 and person 9 × 4, the settings that failed at once', async () => {
    const { path, info } = video('hd');
    expect(info).toMatchObject({ width: 1920, height: 1080 });
    const uniform = await sampleUniform(path, info, 160);
    await expectGood(uniform, 160, info.durationSec);
    expectSpread(uniform, info.durationSec);
    expect(uniform[0]).toMatchObject({ width: 1280, height: 720 });
    const person = await samplePersonFocus(path, info, 36, nobody);
    await expectGood(person, 36, info.durationSec);
  }, 300_000);
});
