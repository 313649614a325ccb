import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { cropAround, jpegSize, jpegStream, outputSize, pickPerBin, planFromKeyframes, splitJpegs, targetTimes } from './frames.js';

const jpeg = (width: number, height: number, colour: string) =>
  sharp({ create: { width, height, channels: 3, background: colour } }).jpeg().toBuffer();

/** Inserts a COM (comment) segment right after SOI. */
const withComment = (buf: Buffer, payload: Buffer) => {
  const len = Buffer.alloc(2);
  len.writeUInt16BE(payload.length + 2);
  return Buffer.concat([buf.subarray(0, 2), Buffer.from([0xff, 0xfe]), len, payload, buf.subarray(2)]);
};

describe('splitJpegs / jpegSize', () => {
  it('splits concatenated JPEGs and reads their sizes', async () => {
    const a = await jpeg(64, 32, '#f00');
    const b = await jpeg(30, 50, '#0f0');
    const c = await jpeg(8, 8, '#00f');
    const parts = splitJpegs(Buffer.concat([a, b, c]));
    expect(parts.map((p) => p.length)).toEqual([a.length, b.length, c.length]);
    expect(parts.map(jpegSize)).toEqual([
      { width: 64, height: 32 },
      { width: 30, height: 50 },
      { width: 8, height: 8 },
    ]);
  });

  it('is not fooled by an end-of-image marker inside a header segment', async () => {
    const a = withComment(await jpeg(16, 16, '#123'), Buffer.from([0xff, 0xd9, 0xff, 0xd8, 0x00]));
    const b = await jpeg(20, 10, '#456');
    const parts = splitJpegs(Buffer.concat([a, b]));
    expect(parts).toHaveLength(2);
    expect(parts[0]?.equals(a)).toBe(true);
    expect(jpegSize(a)).toEqual({ width: 16, height: 16 });
    await expect(sharp(parts[0]).metadata()).resolves.toMatchObject({ width: 16, height: 16 });
  });

  it('rejects a truncated stream', async () => {
    const a = await jpeg(16, 16, '#123');
    expect(() => splitJpegs(a.subarray(0, a.length - 10))).toThrow(/truncated/);
    expect(splitJpegs(Buffer.alloc(0))).toEqual([]);
  });
});

describe('jpegStream (an mjpeg pipe read as it arrives)', () => {
  it('tells each image as soon as its last byte is in, whatever the chunks, and returns them all in order', async () => {
    const a = withComment(await jpeg(64, 32, '#f00'), Buffer.from([0xff, 0xd9, 0xff, 0xd8, 0x00]));
    const b = await jpeg(30, 50, '#0f0');
    const c = await jpeg(8, 8, '#00f');
    const all = Buffer.concat([a, b, c]);
    for (const size of [1, 7, 100, all.length]) {
      const told: Array<{ jpeg: Buffer; at: number }> = [];
      let at = 0;
      const stream = jpegStream((jpeg) => told.push({ jpeg, at }));
      for (let i = 0; i < all.length; i += size) {
        at = Math.min(all.length, i + size);
        stream.push(all.subarray(i, at));
      }
      const ends = [a.length, a.length + b.length, all.length];
      // Each image is told in the chunk that brings its last byte.
      expect(told.map((t) => t.at)).toEqual(ends.map((e) => Math.min(all.length, Math.ceil(e / size) * size)));
      expect(told.map((t) => t.jpeg.equals([a, b, c][told.indexOf(t)]!))).toEqual([true, true, true]);
      expect(stream.end()).toEqual(told.map((t) => t.jpeg));
    }
  });

  it('says at the end that the stream was cut or out of sync, never throws out of a chunk', async () => {
    const a = await jpeg(16, 16, '#123');
    const cut = jpegStream(() => undefined);
    cut.push(a.subarray(0, a.length - 10));
    expect(() => cut.end()).toThrow(/truncated/);
    const garbled = jpegStream(() => undefined);
    expect(() => garbled.push(Buffer.from('not a jpeg at all'))).not.toThrow();
    expect(() => garbled.end()).toThrow(/out of sync/);
  });
});

describe('planning', () => {
  it('targets the centres of equal bins', () => {
    expect(targetTimes(12, 4)).toEqual([1.5, 4.5, 7.5, 10.5]);
  });

  it('matches each target to the nearest keyframe inside its bin, else asks for an exact frame', () => {
    // 10 s, 5 targets (bins of 2 s, tolerance 0.8 s) at 1, 3, 5, 7, 9.
    const plan = planFromKeyframes(10, 5, [0, 1.2, 2.6, 6.9, 7.1, 9.9]);
    expect(plan.keyframes).toEqual([1.2, 2.6, 6.9]);
    expect(plan.exact).toEqual([5, 9]);
  });

  it('sends every target but the first to exact decoding when the video has one keyframe', () => {
    const plan = planFromKeyframes(10, 6, [0]);
    expect(plan.keyframes).toEqual([]);
    expect(plan.exact).toHaveLength(6);
  });

  it('never picks one keyframe for two targets', () => {
    // Targets 0.5 and 1.5 both have 0.85 and 1.15 nearby; each keeps the one in its own bin.
    const plan = planFromKeyframes(10, 10, [0.85, 1.15]);
    expect(plan.keyframes).toEqual([0.85, 1.15]);
    expect(plan.exact).toEqual([2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5]);
  });

  it('caps the long side at 1280 and keeps the aspect, with even sizes', () => {
    const base = { durationSec: 1, fps: 25, codec: 'h264', format: 'mp4' };
    expect(outputSize({ ...base, width: 1920, height: 1080 })).toEqual({ width: 1280, height: 720 });
    expect(outputSize({ ...base, width: 1080, height: 1920 })).toEqual({ width: 720, height: 1280 });
    expect(outputSize({ ...base, width: 640, height: 360 })).toEqual({ width: 640, height: 360 });
  });
});

describe('cropAround', () => {
  it('crops around a small box with a margin, at the frame aspect, inside the frame', () => {
    const [x, y, w, h] = cropAround([1000, 600, 40, 80], 1280, 720);
    expect(w / h).toBeCloseTo(1280 / 720, 1);
    expect(w).toBeLessThan(1280);
    expect(x).toBeLessThanOrEqual(1000);
    expect(y).toBeLessThanOrEqual(600);
    expect(x + w).toBeGreaterThanOrEqual(1040);
    expect(y + h).toBeGreaterThanOrEqual(680);
    expect(x + w).toBeLessThanOrEqual(1280);
    expect(y + h).toBeLessThanOrEqual(720);
    // Not blown up beyond 3× zoom.
    expect(w).toBeGreaterThanOrEqual(1280 / 3 - 1);
  });

  it('never exceeds the frame', () => {
    expect(cropAround([0, 0, 1280, 720], 1280, 720)).toEqual([0, 0, 1280, 720]);
  });
});

describe('pickPerBin', () => {
  const c = (timeSec: number, score: number) => ({ frame: { timeSec }, score });

  it('takes the best candidate of every bin, so the end of the video is never left unseen', () => {
    // 12 s, 4 bins of 3 s: the first 9 s hold excellent candidates, the last 3 s only poor ones.
    const candidates = [c(0.5, 0.9), c(1.5, 0.95), c(3.5, 0.9), c(4.5, 0.8), c(6.5, 0.99), c(7.5, 0.9), c(9.5, 0.1), c(10.5, 0.2)];
    const chosen = pickPerBin(candidates, 4, 12);
    expect(chosen.map((x) => x.frame.timeSec)).toEqual([1.5, 3.5, 6.5, 10.5]);
  });

  it('fills bins without candidates with the best remaining ones', () => {
    const chosen = pickPerBin([c(0.1, 0.5), c(0.2, 0.9), c(0.3, 0.7)], 3, 12);
    expect(chosen.map((x) => x.frame.timeSec)).toEqual([0.1, 0.2, 0.3]);
  });
});
