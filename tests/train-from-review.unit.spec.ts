/** `npm run train -- --from-review DIR` (issue 53): an exported reviewed set read through the training's label pipeline, and the fine-tune's optimiser. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countBoxes } from '../scripts/train/fromReview.js';
import { listReviewedPhotos } from '../scripts/train/data.js';
import { meanLoss, tuneMlp } from '../scripts/train/review/tuneMlp.js';
import { predictMlp, type MlpModel } from '../services/analysis/src/engine/ppeModel.js';

let dir: string;
const size = async () => ({ width: 200, height: 400 });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baret-reviewed-'));
  await mkdir(join(dir, 'images'));
  await mkdir(join(dir, 'labels'));
  await writeFile(join(dir, 'classes.txt'), 'helmet\nvest\nno_helmet\nno_vest\n');
  for (const [stem, label] of [
    ['j1-0', '2 0.5 0.2 0.2 0.1'],
    ['j1-1', '1 0.5 0.5 0.4 0.3'],
    ['j2-0', ''],
  ] as const) {
    await writeFile(join(dir, 'images', `${stem}.jpg`), 'not read: sizes are stubbed');
    await writeFile(join(dir, 'labels', `${stem}.txt`), label);
  }
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a reviewed set for training', () => {
  it('maps the export’s classes onto head and torso labels in pixels, every photo in the training fold', async () => {
    const photos = await listReviewedPhotos(dir, size);
    expect(photos.map((p) => p.file)).toEqual(['j1-0.jpg', 'j1-1.jpg', 'j2-0.jpg']);
    const rounded = (p: (typeof photos)[number]) => p.boxes.map((b) => ({ ...b, box: b.box.map((v) => Math.round(v * 1000) / 1000) }));
    expect(rounded(photos[0]!)).toEqual([{ kind: 'head', label: 'bare', box: [80, 60, 40, 40] }]);
    expect(rounded(photos[1]!)).toEqual([{ kind: 'torso', label: 'vest', box: [60, 140, 80, 120] }]);
    expect(photos.every((p) => p.fold === 'train' && !p.headDetector && !p.vestMasked)).toBe(true);
    expect(countBoxes(photos)).toEqual({ 'head:bare': 1, 'torso:vest': 1 });
  });

  it('refuses a folder whose classes are not the export’s', async () => {
    await writeFile(join(dir, 'classes.txt'), 'helmet\nhead\nperson\n');
    await expect(listReviewedPhotos(dir, size)).rejects.toThrow(/not a Baret reviewed set/);
  });
});

describe('fine-tuning a shipped classifier on reviewed crops (tuneMlp)', () => {
  // A shipped two-class model that reads one feature: class 0 when it is positive.
  const shipped: MlpModel = { classes: ['a', 'b'], featureMean: [0, 0], featureStd: [1, 1], layers: [{ weights: [[2, 0], [-2, 0]], bias: [0, 0] }] };
  const options = { epochs: 200, learningRate: 0.05, anchor: 0 };

  it('moves the verdict of a reviewed crop the model had wrong toward the reviewer’s', () => {
    const reviewed = { features: [1, 1], label: 1, weight: 1 };
    expect(predictMlp(shipped, reviewed.features)[1]).toBeLessThan(0.1);
    const { model, losses } = tuneMlp(shipped, [reviewed], options);
    expect(predictMlp(model, reviewed.features)[1]).toBeGreaterThan(0.9);
    expect(losses.at(-1)).toBeLessThan(losses[0]!);
    expect(meanLoss(model, [reviewed])).toBeLessThan(meanLoss(shipped, [reviewed]));
    // The standardisation and the classes stay as shipped.
    expect(model.classes).toEqual(shipped.classes);
    expect(model.featureMean).toEqual(shipped.featureMean);
  });

  it('keeps what replayed crops say, and a strong pull keeps the shipped weights', () => {
    const reviewed = { features: [1, 1], label: 1, weight: 1 };
    const replay = [
      { features: [1, -1], label: 0, weight: 1 },
      { features: [-1, -1], label: 1, weight: 1 },
    ];
    const { model } = tuneMlp(shipped, [reviewed, ...replay], options);
    expect(predictMlp(model, reviewed.features)[1]).toBeGreaterThan(0.5);
    expect(predictMlp(model, replay[0]!.features)[0]).toBeGreaterThan(0.5);
    const pulled = tuneMlp(shipped, [reviewed], { ...options, anchor: 1000 }).model;
    expect(predictMlp(pulled, reviewed.features)[1]).toBeLessThan(0.1);
  });

  it('refuses labels and features the model does not have', () => {
    expect(() => tuneMlp(shipped, [{ features: [1, 1], label: 2, weight: 1 }], options)).toThrow(/label 2/);
    expect(() => tuneMlp(shipped, [{ features: [1], label: 0, weight: 1 }], options)).toThrow(/1 features/);
    expect(() => tuneMlp(shipped, [], options)).toThrow(/no samples/);
  });
});
