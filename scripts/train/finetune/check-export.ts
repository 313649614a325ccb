/**
 * Prototype check (README.md): the weights `finetune.py --export` wrote, loaded by tfjs into the
 * unchanged centernet.json topology the way ppeEmbedding.ts loads the backbone, must give the same
 * classifier probabilities as TensorFlow on the probe crops. Prints the largest difference.
 * Usage: npx tsx scripts/train/finetune/check-export.ts head|torso
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import * as tfconv from '@tensorflow/tfjs-converter';
import { warmUpDetector } from '../../../services/analysis/src/engine/detector.js';
import { backboneArtifacts, EMBED_INPUT, EMBEDDING_NODES } from '../../../services/analysis/src/engine/ppeEmbedding.js';
import { predictMlp, type MlpModel } from '../../../services/analysis/src/engine/ppeModel.js';
import { CACHE_DIR } from '../data.js';

const kind = process.argv[2] === 'torso' ? 'torso' : 'head';
const dir = path.join(CACHE_DIR, 'finetune');
/** The run time's embedding, then the backbone's last layer (averaged below), as finetune.py embeds. */
const OUTPUTS = [...EMBEDDING_NODES, 'tower_0/extern1/hard_swish/mul_1'];

await warmUpDetector();
const artifacts = await backboneArtifacts();
const tuned = await readFile(path.join(dir, `backbone-${kind}.bin`));
const weightData = tuned.buffer.slice(tuned.byteOffset, tuned.byteOffset + tuned.byteLength);
const model = await tfconv.loadGraphModel({ load: async () => ({ ...artifacts, weightData }) });

const { model: mlp, probe } = JSON.parse(await readFile(path.join(dir, `classifier-${kind}.json`), 'utf8')) as { model: MlpModel; probe: { index: number[]; p: number[][] } };
const { width, height } = EMBED_INPUT[kind];
const crop = width * height * 3;
const all = await readFile(path.join(dir, `crops-${kind}.u8`));
const pixels = new Float32Array(probe.index.length * crop);
probe.index.forEach((row, i) => pixels.set(Float32Array.from(all.subarray(row * crop, (row + 1) * crop)), i * crop));
const input = tf.tensor4d(pixels, [probe.index.length, height, width, 3]);
const outs = model.execute(input, OUTPUTS) as tf.Tensor[];
const parts = await Promise.all(outs.map((t, k) => (k === outs.length - 1 ? tf.mean(t, [1, 2]) : tf.reshape(t, [probe.index.length, -1])).data()));
let worst = 0;
probe.index.forEach((_, i) => {
  const features: number[] = [];
  for (const [k, part] of parts.entries()) {
    const channels = outs[k]!.shape[3]!;
    features.push(...part.subarray(i * channels, (i + 1) * channels));
  }
  const p = predictMlp(mlp, features);
  worst = Math.max(worst, ...p.map((v, c) => Math.abs(v - probe.p[i]![c]!)));
});
console.log(JSON.stringify({ kind, probes: probe.index.length, maxProbabilityDifference: worst }));
