import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import sharp from 'sharp';
import { sharedDataDir } from '@baret/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { detectFacesHumanRaw, detectFacesRaw, localModelDir, warmUpDetector, type RawImage } from './detector.js';
import { COCO_PERSON, detectObjects, detectPose, type CenterNetRun, type MoveNetRun } from './onnxDetectors.js';

/**
 * ADR 0030: CenterNet, BlazeFace and MoveNet run in onnxruntime, converted from `@vladmandic/human`'s files.
 * These tests hold the converted networks and the code around them to Human's own on validation
 * photographs (measurement only), so that a new Human or a new conversion that drifts is caught.
 */
const VEST_V4 = sharedDataDir('ppe-photos', 'safety-vest-v4');
const PHOTOS = 10;

let photos: RawImage[] = [];
const sizes = [1024, 400];

async function decode(file: string, side: number): Promise<RawImage> {
  const { data, info } = await sharp(file).rotate().removeAlpha().toColourspace('srgb').resize(side, side, { fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

beforeAll(async () => {
  await warmUpDetector();
  const dir = path.join(VEST_V4, 'images');
  const names = (await readdir(dir)).filter((n) => n.endsWith('.jpg')).sort();
  // Evenly spread over the set: crowds, close-ups and single workers.
  const picked = Array.from({ length: PHOTOS }, (_, i) => names[Math.floor((i * names.length) / PHOTOS)]!);
  photos = (await Promise.all(picked.map((n) => Promise.all(sizes.map((side) => decode(path.join(dir, n), side)))))).flat();
}, 120_000);

/**
 * One of the package's networks as tfjs runs it on the WASM backend (Human's own files, read from
 * node_modules: the detector registers tfjs' loader of file URLs), loaded on first use.
 */
function packageNetwork(file: string, side: number, dtype: 'float32' | 'int32', outputs?: string[]): (pixels: Float32Array | Int32Array) => Promise<Float32Array> {
  let model: Promise<GraphModel> | undefined;
  return async (pixels) => {
    model ??= loadGraphModel(pathToFileURL(path.join(localModelDir(), file)).href);
    const input = tf.tensor4d(pixels, [1, side, side, 3], dtype);
    const out = (await model).execute(input, outputs) as tf.Tensor;
    const data = (await out.data()) as Float32Array;
    tf.dispose([input, out]);
    return data;
  };
}

describe('BlazeFace in onnxruntime (ADR 0030)', () => {
  it('finds the same faces as Human on the WASM backend: count, boxes and scores equal, landmarks within a hundredth of a pixel', async () => {
    let faces = 0;
    for (const img of photos) {
      for (const minScore of [0.2, 0.15]) {
        const human = await detectFacesHumanRaw(img, { minScore });
        const onnx = await detectFacesRaw(img, { minScore });
        expect(onnx.map((f) => [f.box, f.score])).toEqual(human.map((f) => [f.box, f.score]));
        onnx.forEach((f, i) => f.landmarks.forEach(([x, y], k) => expect(Math.max(Math.abs(x - human[i]!.landmarks[k]![0]), Math.abs(y - human[i]!.landmarks[k]![1]))).toBeLessThan(0.01)));
        faces += onnx.length;
      }
    }
    // The photos show faces: the comparison was over real ones.
    expect(faces).toBeGreaterThan(20);
  }, 120_000);
});

describe('CenterNet in onnxruntime (ADR 0030)', () => {
  it('finds the same boxes as the package\'s network on the WASM backend: labels and boxes equal within a pixel, scores within 0.01', async () => {
    const tfjs: CenterNetRun = packageNetwork('centernet.json', 512, 'float32', ['tower_0/detections']);
    let persons = 0;
    for (const img of photos) {
      const image = tf.tensor4d(img.data, [1, img.height, img.width, 3], 'int32');
      try {
        const onnx = await detectObjects(image);
        const reference = await detectObjects(image, tfjs);
        // A box at the threshold may fall either side; every confident one is in both.
        const confident = (list: typeof onnx) => list.filter((o) => o.score >= 0.25);
        for (const o of confident(reference)) {
          const same = onnx.find((p) => p.label === o.label && p.box.every((v, k) => Math.abs(v - o.box[k]!) <= 1));
          expect(same, JSON.stringify(o)).toBeDefined();
          expect(Math.abs(same!.score - o.score)).toBeLessThanOrEqual(0.01);
        }
        expect(confident(onnx).length).toBe(confident(reference).length);
        persons += onnx.filter((o) => o.label === COCO_PERSON && o.score >= 0.3).length;
      } finally {
        tf.dispose(image);
      }
    }
    expect(persons).toBeGreaterThan(10);
  }, 180_000);
});

describe('MoveNet in onnxruntime (ADR 0030)', () => {
  it("finds the same body parts as the package's network on the WASM backend, on whole photos and on crops: parts equal, places within a pixel, scores within 0.01", async () => {
    const tfjs: MoveNetRun = packageNetwork('movenet-lightning.json', 192, 'int32');
    let parts = 0;
    for (const img of photos) {
      const image = tf.tensor4d(img.data, [1, img.height, img.width, 3], 'int32');
      const { width: w, height: h } = img;
      // The whole photo (the sampler's look), and crops the way a person's box is cut (tall, wide, off-centre).
      for (const [x, y, cw, ch] of [
        [0, 0, w, h],
        [0, 0, Math.round(w / 2), h],
        [Math.round(w / 3), Math.round(h / 4), Math.round(w / 3), Math.round(h / 2)],
      ] as const) {
        const crop = tf.slice4d(image, [0, y, x, 0], [1, ch, cw, 3]);
        try {
          // A fresh history each: the jitter filter would otherwise hide small differences.
          const onnx = await detectPose(crop, 0.1, undefined, { keypoints: [] });
          const reference = await detectPose(crop, 0.1, tfjs, { keypoints: [] });
          // A part at the threshold may fall either side; the confident ones are in both, at the same place.
          const confident = (list: typeof onnx) => list.filter((k) => k.score >= 0.15);
          for (const k of confident(reference)) {
            const same = onnx.find((o) => o.part === k.part);
            expect(same, k.part).toBeDefined();
            expect(Math.abs(same!.score - k.score)).toBeLessThanOrEqual(0.01);
            expect(Math.max(Math.abs(same!.position[0] - k.position[0]), Math.abs(same!.position[1] - k.position[1]))).toBeLessThanOrEqual(1);
          }
          parts += confident(onnx).length;
        } finally {
          tf.dispose(crop);
        }
      }
      tf.dispose(image);
    }
    expect(parts).toBeGreaterThan(100);
  }, 180_000);
});
