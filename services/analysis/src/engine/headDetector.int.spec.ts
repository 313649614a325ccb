import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { sharedDataDir } from '@baret/platform';
import { describe, expect, it } from 'vitest';
import { WorkerTracker } from '../tracking.js';
import type { RawImage } from './detector.js';
import {
  decodeHeads,
  detectHeads,
  HEAD_DETECTOR_PATH,
  headDetectorInputSize,
  headOnlyWorkerBox,
  readHeadDetectorFile,
  verifyHeadDetectorWeights,
  type DetectedHead,
} from './headDetector.js';

const PHOTOS = sharedDataDir('ppe-photos', 'safety-vest-v4');

async function raw(file: string): Promise<RawImage> {
  const { data, info } = await sharp(file).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

const inside = (x: number, y: number, [bx, by, bw, bh]: number[]): boolean => x >= bx! && x <= bx! + bw! && y >= by! && y <= by! + bh!;

describe('the head detector', () => {
  it('finds the labelled heads of the validation photos, and little else (never trained on them)', async () => {
    const files = (await readdir(path.join(PHOTOS, 'images'))).sort().slice(0, 24);
    let labelled = 0;
    let found = 0;
    let detections = 0;
    let onHeads = 0;
    for (const f of files) {
      const img = await raw(path.join(PHOTOS, 'images', f));
      const heads = await detectHeads(img);
      // Hard hat (0) and bare head (2) boxes, [x, y, w, h] in pixels.
      const labels = (await readFile(path.join(PHOTOS, 'labels', f.replace(/\.jpg$/, '.txt')), 'utf8'))
        .split('\n')
        .map((l) => l.trim().split(/\s+/).map(Number))
        .filter((v) => v[0] === 0 || v[0] === 2)
        .map(([, cx, cy, w, h]) => [(cx! - w! / 2) * img.width, (cy! - h! / 2) * img.height, w! * img.width, h! * img.height]);
      labelled += labels.length;
      detections += heads.length;
      found += labels.filter((b) => heads.some((h) => inside(b[0]! + b[2]! / 2, b[1]! + b[3]! / 2, h.box))).length;
      onHeads += heads.filter((h) => labels.some((b) => inside(h.box[0] + h.box[2] / 2, h.box[1] + h.box[3] / 2, b))).length;
      expect(heads.map((h) => h.score)).toEqual([...heads.map((h) => h.score)].sort((a, b) => b - a));
    }
    // Measured: 69 of 84 labelled heads found, 71 of 74 detections on a labelled head.
    expect(labelled).toBeGreaterThan(60);
    expect(found / labelled).toBeGreaterThan(0.7);
    expect(onHeads / detections).toBeGreaterThan(0.85);
  }, 120_000);

  it('keeps a frame\'s aspect: 384 px on the long side, the short side a multiple of 16', () => {
    expect(headDetectorInputSize(1920, 1080)).toEqual({ width: 384, height: 224 });
    expect(headDetectorInputSize(1080, 1920)).toEqual({ width: 224, height: 384 });
    expect(headDetectorInputSize(416, 416)).toEqual({ width: 384, height: 384 });
    expect(headDetectorInputSize(4000, 100)).toEqual({ width: 384, height: 32 });
    // A format-2 detector (EfficientNet-Lite2, ADR 0031): the short side a multiple of 32.
    expect(headDetectorInputSize(1280, 800, 32)).toEqual({ width: 384, height: 256 });
    expect(headDetectorInputSize(1280, 800)).toEqual({ width: 384, height: 240 });
  });

  it('reads a format-2 model file (the measured Lite2 detector) and refuses a format it does not know, saying what to do', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'baret-heads-'));
    try {
      const file = path.join(dir, 'ppe-head-detector.json');
      const lite2 = { version: 2, input: 384, stride: 8, weights: { file: 'ppe-head-detector-lite2.onnx', sha256: 'x' }, minScore: 0.3, crop: readHeadDetectorFile().crop };
      await writeFile(file, JSON.stringify(lite2));
      expect(readHeadDetectorFile(file)).toMatchObject({ version: 2, minScore: 0.3 });
      await writeFile(file, JSON.stringify({ ...lite2, version: 7 }));
      expect(() => readHeadDetectorFile(file)).toThrow(/version 7, this build reads version 1 \(or 2, the measured Lite2 detector\): run npm run train/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads heads off its maps: local maxima from the minimum score, boxes in image pixels, most confident first', () => {
    const gridW = 4;
    const gridH = 3;
    const heat = new Float32Array(gridW * gridH * 2);
    const size = new Float32Array(gridW * gridH * 2);
    const set = (x: number, y: number, hat: number, bare: number, logW: number, logH: number): void => {
      const i = (y * gridW + x) * 2;
      heat.set([hat, bare], i);
      size.set([logW, logH], i);
    };
    set(0, 0, 0.6, 0.1, Math.log(2), Math.log(3)); // a hard-hat peak
    set(1, 0, 0.55, 0.2, 0, 0); // its neighbour, lower: not a peak
    set(3, 2, 0.1, 0.9, 0, 0); // a bare-head peak
    set(2, 1, 0.3, 0.2, 0, 0); // below the minimum
    const heads = decodeHeads({ heat, size, gridW, gridH }, 0.5, 2, 1);
    expect(heads.map((h) => h.score)).toEqual([expect.closeTo(0.9, 5), expect.closeTo(0.6, 5)]);
    // Cell (0, 0): centre (4, 4) input px, 16 × 24 px; x scaled by 2.
    expect(heads[1]!.box.map((v) => Math.round(v * 100) / 100)).toEqual([-8, -8, 32, 24]);
  });

  it('reports a large head that peaks in two cells once, and two heads side by side twice', () => {
    const gridW = 8;
    const gridH = 4;
    const heat = new Float32Array(gridW * gridH * 2);
    const size = new Float32Array(gridW * gridH * 2);
    const peak = (x: number, y: number, score: number, cells: number): void => {
      const i = (y * gridW + x) * 2;
      heat[i] = score;
      size.set([Math.log(cells), Math.log(cells)], i);
    };
    // One head 5 cells wide with a second peak two cells from its centre.
    peak(2, 1, 0.9, 5);
    peak(4, 1, 0.7, 5);
    expect(decodeHeads({ heat, size, gridW, gridH }, 0.5, 1, 1)).toHaveLength(1);
    // Two small heads three cells apart, each a cell and a half wide: both kept.
    const heat2 = new Float32Array(gridW * gridH * 2);
    const size2 = new Float32Array(gridW * gridH * 2);
    for (const x of [1, 4]) {
      heat2[(1 * gridW + x) * 2] = 0.8;
      size2.set([Math.log(1.5), Math.log(1.5)], (1 * gridW + x) * 2);
    }
    expect(decodeHeads({ heat: heat2, size: size2, gridW, gridH }, 0.5, 1, 1)).toHaveLength(2);
  });

  it('is the committed weights its model file names; a changed file is refused with what to do', async () => {
    const model = readHeadDetectorFile();
    const file = path.join(path.dirname(HEAD_DETECTOR_PATH), model.weights.file);
    const weights = await readFile(file);
    expect(() => verifyHeadDetectorWeights(model, weights, file)).not.toThrow();
    const changed = Buffer.from(weights);
    changed[100] = changed[100]! ^ 1;
    expect(() => verifyHeadDetectorWeights(model, changed, file)).toThrow(/not the head detector weights.*run npm run train/);
  });

  it('boxes a worker found by the head alone as the body below that head, inside the image', () => {
    const head: DetectedHead = { box: [100, 50, 20, 24], score: 0.8 };
    expect(headOnlyWorkerBox(head, 640, 480)).toEqual([85, 46, 50, 148]);
    // At the image's corner the box is cut to the image.
    expect(headOnlyWorkerBox({ box: [-5, -5, 20, 24], score: 0.8 }, 40, 40)).toEqual([0, 0, 30, 40]);
  });

  it('lets a worker keep one number when the person detector finds them in one frame and only their head in the next', () => {
    // A standing worker, 100 × 400 px in a 1280 × 720 frame, head 36 × 44 px at the top of the box
    // (a head-and-shoulders box, 139 px tall, would be too small to be taken for the same worker).
    const W = 1280;
    const H = 720;
    const person = { x: 600 / W, y: 200 / H, w: 100 / W, h: 400 / H };
    const [x, y, w, h] = headOnlyWorkerBox({ box: [632, 204, 36, 44], score: 0.8 }, W, H);
    const tracker = new WorkerTracker();
    const [first] = tracker.assign(0, [person]);
    const [second] = tracker.assign(1, [{ x: x / W, y: y / H, w: w / W, h: h / H }]);
    expect(second).toBe(first);
  });
});
