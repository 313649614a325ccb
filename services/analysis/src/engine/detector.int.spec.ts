import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { sharedDataDir } from '@baret/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { detectPersons, warmUpDetector } from './detector.js';

const PHOTOS = sharedDataDir('ppe-photos');

/** Labelled photographs that clearly show workers (each has several helmet/vest boxes). */
const WORKER_PHOTOS = [
  'safety-vest-v4/images/valid__00341_jpg',
  'safety-vest-v4/images/valid__00409_jpg',
  'safety-gear-test/images/IMG-20250805-WA0028.jpg',
];

async function photo(rel: string): Promise<Buffer> {
  const dir = path.join(PHOTOS, path.dirname(rel));
  // vest-v4 file names carry a Roboflow hash after `.rf.`: match on the stable prefix.
  const prefix = path.basename(rel).split('.rf.')[0] ?? rel;
  const name = (await readdir(dir)).find((f) => f.startsWith(prefix));
  if (!name) throw new Error(`missing photo ${rel}`);
  return readFile(path.join(dir, name));
}

describe('detectPersons (human centernet + movenet on wasm)', () => {
  beforeAll(async () => {
    const { initMs } = await warmUpDetector();
    expect(initMs).toBeGreaterThan(0);
  }, 60_000);

  it.each(WORKER_PHOTOS)('finds a worker with keypoints in %s', async (rel) => {
    const jpeg = await photo(rel);
    const meta = await sharp(jpeg).metadata();
    const result = await detectPersons(jpeg);
    expect(result.width).toBe(meta.width);
    expect(result.height).toBe(meta.height);
    expect(result.persons.length).toBeGreaterThanOrEqual(1);
    const best = result.persons[0]!;
    const [x, y, w, h] = best.box;
    expect(x).toBeGreaterThanOrEqual(0);
    expect(y).toBeGreaterThanOrEqual(0);
    expect(x + w).toBeLessThanOrEqual(result.width + 1);
    expect(y + h).toBeLessThanOrEqual(result.height + 1);
    const confident = best.keypoints.filter((k) => k.score >= 0.3);
    expect(confident.length).toBeGreaterThanOrEqual(5);
    const parts = new Set(confident.map((k) => k.part));
    expect(parts.has('leftShoulder') || parts.has('rightShoulder')).toBe(true);
    // Keypoints are in input pixels, near the person box.
    for (const k of confident) {
      expect(k.x).toBeGreaterThanOrEqual(x - w * 0.3);
      expect(k.x).toBeLessThanOrEqual(x + w * 1.3);
      expect(k.y).toBeGreaterThanOrEqual(y - h * 0.2);
      expect(k.y).toBeLessThanOrEqual(y + h * 1.2);
    }
  });

  it('finds several workers in a crew photo', async () => {
    const result = await detectPersons(await photo('safety-vest-v4/images/valid__00411_jpg'));
    expect(result.persons.length).toBeGreaterThanOrEqual(2);
  });

  it('finds nobody in a plain synthetic image', async () => {
    const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 90, g: 120, b: 160 } } })
      .jpeg()
      .toBuffer();
    const result = await detectPersons(jpeg);
    expect(result).toEqual({ width: 640, height: 480, persons: [] });
  });

  it('reports boxes in pixels of a large input (downscaled internally)', async () => {
    const small = await photo('safety-gear-test/images/IMG-20250805-WA0028.jpg');
    const big = await sharp(small).resize(1920, 1920).jpeg().toBuffer();
    const [a, b] = await Promise.all([detectPersons(small), detectPersons(big)]);
    expect(b.width).toBe(1920);
    const pa = a.persons[0]!;
    const pb = b.persons[0]!;
    const ratio = 1920 / a.width;
    expect(Math.abs(pb.box[0] - pa.box[0] * ratio)).toBeLessThan(0.05 * 1920);
    expect(Math.abs(pb.box[3] - pa.box[3] * ratio)).toBeLessThan(0.08 * 1920);
  });
});
