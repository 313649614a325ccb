import { describe, expect, it } from 'vitest';

import type { RawImage } from './detector.js';
import { tapeBand } from './tape.js';

type Rgb = readonly [number, number, number];

/** A torso-sized picture of one colour, with `paint` deciding the colour of any pixel it wants to. */
function torso(width: number, height: number, cloth: Rgb, paint: (x: number, y: number) => Rgb | undefined = () => undefined): RawImage {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(paint(x, y) ?? cloth, (y * width + x) * 3);
  }
  return { data, width, height };
}

const whole = (img: RawImage) => ({ x0: 0, y0: 0, x1: img.width, y1: img.height });
const ROYAL_BLUE: Rgb = [30, 60, 220];
const PALE_BLUE_TAPE: Rgb = [160, 175, 230];
const SILVER_TAPE: Rgb = [235, 235, 235];

describe('reflective tape on a torso (issue 51)', () => {
  it('finds the pale band sewn down a royal-blue vest, upright, slanted or crossed by another, and the silver bands round an orange one', () => {
    const upright = torso(80, 120, ROYAL_BLUE, (x) => (x >= 30 && x < 38 ? PALE_BLUE_TAPE : undefined));
    expect(tapeBand(upright, whole(upright))).toBeGreaterThan(1);
    const slanted = torso(80, 120, ROYAL_BLUE, (x, y) => (Math.abs(x - 10 - y * 0.5) < 4 ? PALE_BLUE_TAPE : undefined));
    expect(tapeBand(slanted, whole(slanted))).toBeGreaterThan(1);
    const crossed = torso(100, 130, ROYAL_BLUE, (x, y) => ((x >= 20 && x < 28) || (x >= 72 && x < 80) || (y >= 90 && y < 98) ? PALE_BLUE_TAPE : undefined));
    expect(tapeBand(crossed, whole(crossed))).toBeGreaterThan(2);
    const orange = torso(90, 110, [255, 110, 0], (_x, y) => ((y >= 40 && y < 47) || (y >= 80 && y < 87) ? SILVER_TAPE : undefined));
    expect(tapeBand(orange, whole(orange))).toBeGreaterThan(0.9);
  });

  it('finds none on plain cloth, on a band along the torso\'s edge (the background, an arm, a caption), on a badge, on a shirt between the sides of an open jacket, or on a torso too small', () => {
    const plain = torso(80, 120, ROYAL_BLUE);
    expect(tapeBand(plain, whole(plain))).toBe(0);
    const edge = torso(80, 120, ROYAL_BLUE, (x) => (x < 8 ? PALE_BLUE_TAPE : undefined));
    expect(tapeBand(edge, whole(edge))).toBe(0);
    const caption = torso(120, 90, ROYAL_BLUE, (_x, y) => (y >= 80 ? [240, 240, 240] : undefined));
    expect(tapeBand(caption, whole(caption))).toBe(0);
    const badge = torso(80, 120, ROYAL_BLUE, (x, y) => (x >= 30 && x < 50 && y >= 30 && y < 50 ? SILVER_TAPE : undefined));
    expect(tapeBand(badge, whole(badge))).toBe(0);
    const openJacket = torso(90, 140, ROYAL_BLUE, (x) => (x >= 32 && x < 58 ? [215, 220, 210] : undefined));
    expect(tapeBand(openJacket, whole(openJacket))).toBe(0);
    const small = torso(20, 30, ROYAL_BLUE, (x) => (x >= 8 && x < 11 ? PALE_BLUE_TAPE : undefined));
    expect(tapeBand(small, whole(small))).toBe(0);
  });

  it('tells no tape on a garment with too little colour to tell it from: a grey shirt with white stripes', () => {
    const grey = torso(80, 120, [110, 112, 118], (x) => (x >= 30 && x < 38 ? [245, 245, 245] : undefined));
    expect(tapeBand(grey, whole(grey))).toBe(0);
  });

  it('reads the band at the exposure it is given: a royal-blue vest in shadow, brightened by the torso gain', () => {
    const dim = torso(80, 120, [8, 16, 58], (x) => (x >= 30 && x < 38 ? [44, 48, 62] : undefined));
    expect(tapeBand(dim, whole(dim))).toBe(0);
    expect(tapeBand(dim, whole(dim), 2.5)).toBeGreaterThan(1);
  });
});
