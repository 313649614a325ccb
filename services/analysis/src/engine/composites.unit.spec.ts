import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@baret/platform';
import { buildComposites, CELL_GAP, formatTimecode, gridFor, groupFrames } from './composites.js';
import type { SampledFrame } from './types.js';

const GREY = 128;

async function frame(index: number, timeSec: number, width = 640, height = 360, grey = GREY): Promise<SampledFrame> {
  const jpeg = await sharp({ create: { width, height, channels: 3, background: { r: grey, g: grey, b: grey } } }).jpeg().toBuffer();
  return { index, timeSec, jpeg, width, height };
}
const frames = (n: number, w?: number, h?: number) => Promise.all(Array.from({ length: n }, (_, i) => frame(i, i * 2.5, w, h)));

async function region(jpeg: Buffer, left: number, top: number, width: number, height: number) {
  const { data } = await sharp(jpeg).extract({ left, top, width, height }).greyscale().raw().toBuffer({ resolveWithObject: true });
  let min = 255, max = 0, sum = 0;
  for (const v of data) {
    min = Math.min(min, v);
    max = Math.max(max, v);
    sum += v;
  }
  return { min, max, mean: sum / data.length, data };
}

describe('helpers', () => {
  it('formats time codes', () => {
    expect(formatTimecode(83.44)).toBe('00:01:23.4');
    expect(formatTimecode(0)).toBe('00:00:00.0');
    expect(formatTimecode(3661.99)).toBe('01:01:01.9');
    expect(formatTimecode(0.3)).toBe('00:00:00.3');
  });

  it('chooses grids by frame count', () => {
    expect([2, 3, 4, 5, 6, 7, 8].map((n) => gridFor(n))).toEqual([
      { cols: 2, rows: 1 }, { cols: 2, rows: 2 }, { cols: 2, rows: 2 }, { cols: 3, rows: 2 },
      { cols: 3, rows: 2 }, { cols: 4, rows: 2 }, { cols: 4, rows: 2 },
    ]);
  });

  it('groups frames in order, fewer groups rather than empty cells', () => {
    const ten = Array.from({ length: 10 }, (_, i) => i);
    expect(groupFrames(ten, 6, 4)).toEqual([[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]);
    expect(groupFrames(ten, 2, 5)).toEqual([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]);
    expect(groupFrames([0, 1, 2], 6, 4)).toEqual([[0, 1, 2]]);
    // More frames than fit: an evenly spread subset, still in order.
    const kept = groupFrames(Array.from({ length: 30 }, (_, i) => i), 2, 4).flat();
    expect(kept).toHaveLength(8);
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
    expect(kept[0]).toBeLessThan(4);
    expect(kept[7]).toBeGreaterThan(25);
  });
});

describe('buildComposites', () => {
  it('tells for each cell which part of the video frame it shows when the sampler cropped the frame', async () => {
    const [whole, cropped] = await frames(2);
    const region = { x: 0.5, y: 0.25, w: 0.5, h: 0.5 };
    const [c] = await buildComposites([whole!, { ...cropped!, region }], { targetComposites: 1, framesPerComposite: 2 });
    expect(c!.cells.map((cell) => cell.region)).toEqual([undefined, region]);
  });

  it('builds 6 composites of 2×2 from 24 frames, at most 2048 px wide, cells in order', async () => {
    const comps = await buildComposites(await frames(24, 1280, 720), { targetComposites: 6, framesPerComposite: 4 });
    expect(comps).toHaveLength(6);
    comps.forEach((c, i) => {
      expect(c.index).toBe(i);
      expect(c.cells.map((cell) => cell.frameIndex)).toEqual([4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3]);
      expect(c.width).toBeLessThanOrEqual(2048);
      expect(c.width).toBeGreaterThan(2000);
    });
    const c0 = comps[0]!;
    const meta = await sharp(c0.jpeg).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', c0.width, c0.height]);
    const cellW = (c0.width - CELL_GAP) / 2;
    expect(c0.cells.map((c) => [c.x, c.y])).toEqual([
      [0, 0], [cellW + CELL_GAP, 0], [0, c0.cells[0]!.height + CELL_GAP], [cellW + CELL_GAP, c0.cells[0]!.height + CELL_GAP],
    ]);
    expect(c0.cells[0]!.width / c0.cells[0]!.height).toBeCloseTo(16 / 9, 2);
    expect(c0.cells[1]!.timeSec).toBe(2.5);
  });

  it('uses the 4×2 grid for 8 frames and 3×2 for 6', async () => {
    const [eight] = await buildComposites(await frames(8), { targetComposites: 1, framesPerComposite: 8 });
    expect(eight!.cells).toHaveLength(8);
    expect(new Set(eight!.cells.map((c) => c.x)).size).toBe(4);
    expect(new Set(eight!.cells.map((c) => c.y)).size).toBe(2);
    const [six] = await buildComposites(await frames(6), { targetComposites: 1, framesPerComposite: 6 });
    expect(new Set(six!.cells.map((c) => c.x)).size).toBe(3);
    expect(new Set(six!.cells.map((c) => c.y)).size).toBe(2);
  });

  it('makes fewer composites when there are fewer frames than target × per composite', async () => {
    const comps = await buildComposites(await frames(10), { targetComposites: 6, framesPerComposite: 4 });
    expect(comps.map((c) => c.cells.length)).toEqual([4, 3, 3]);
    expect(comps.flatMap((c) => c.cells.map((cell) => cell.frameIndex))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('does not upscale small frames', async () => {
    const [c] = await buildComposites(await frames(4, 320, 180), { targetComposites: 1, framesPerComposite: 4 });
    expect(c!.width).toBe(2 * 320 + CELL_GAP);
    expect(c!.cells[0]).toMatchObject({ width: 320, height: 180 });
  });

  it('letterboxes a frame of another aspect and keeps its aspect', async () => {
    const group = [await frame(0, 0), await frame(1, 1), await frame(2, 2, 180, 320)];
    const [c] = await buildComposites(group, { targetComposites: 1, framesPerComposite: 4 });
    const portrait = c!.cells[2]!;
    const landscape = c!.cells[0]!;
    expect(portrait.width / portrait.height).toBeCloseTo(180 / 320, 1);
    expect(portrait.height).toBe(landscape.height);
    // Black bars left of the portrait picture, inside its cell.
    const bar = await region(c!.jpeg, 0, portrait.y + 10, Math.max(1, portrait.x - 4), 40);
    expect(bar.max).toBeLessThan(30);
    const pic = await region(c!.jpeg, portrait.x + 4, portrait.y + 4, portrait.width - 8, 20);
    expect(Math.abs(pic.mean - GREY)).toBeLessThan(6);
  });

  it('draws a visible time-code label on each frame, different per time', async () => {
    const group = [await frame(0, 1.2), await frame(1, 83.4)];
    const [c] = await buildComposites(group, { targetComposites: 1, framesPerComposite: 2 });
    const labels = [];
    for (const cell of c!.cells) {
      // Label box: bottom-left corner of the picture. Raw frame there is uniform grey.
      const label = await region(c!.jpeg, cell.x + 6, cell.y + cell.height - 40, 120, 34);
      expect(label.mean).toBeLessThan(GREY - 40); // dark box
      expect(label.max).toBeGreaterThan(220); // white text
      labels.push(label.data);
      // The rest of the picture is untouched.
      const top = await region(c!.jpeg, cell.x + cell.width - 100, cell.y + 10, 90, 60);
      expect(Math.abs(top.mean - GREY)).toBeLessThan(4);
      expect(top.max - top.min).toBeLessThan(12);
    }
    let diff = 0;
    for (let i = 0; i < labels[0]!.length; i++) diff += Math.abs(labels[0]![i]! - labels[1]![i]!);
    expect(diff / labels[0]!.length).toBeGreaterThan(5);
  });

  it('validates its options', async () => {
    const fs = await frames(2);
    for (const bad of [
      { targetComposites: 0, framesPerComposite: 4 },
      { targetComposites: 21, framesPerComposite: 4 },
      { targetComposites: 6, framesPerComposite: 1 },
      { targetComposites: 6, framesPerComposite: 9 },
      { targetComposites: 2.5, framesPerComposite: 4 },
    ]) {
      await expect(buildComposites(fs, bad)).rejects.toBeInstanceOf(ValidationError);
    }
    expect(await buildComposites([], { targetComposites: 6, framesPerComposite: 4 })).toEqual([]);
  });
});
