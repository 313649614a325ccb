/**
 * Fine-tuning a shipped classifier (ppeModel.ts's MlpModel: standardise → dense(relu)… → softmax)
 * on top of its own weights (issue 53, ADR 0033): full-batch Adam on the weighted cross-entropy of
 * the samples, plus an L2 pull of every weight back toward the shipped one ("L2-SP"), so that a
 * few dozen reviewed crops move the verdict where they are and the rest of what the model learned
 * stays. The standardisation (featureMean, featureStd) is kept as shipped: the reviewed crops are
 * read on the same scale as the crops it was fitted on. Deterministic: no sampling, fixed order.
 */
import type { MlpModel } from '../../../services/analysis/src/engine/ppeModel.js';

export interface Sample {
  features: ArrayLike<number>;
  label: number;
  weight: number;
}

export interface TuneOptions {
  epochs: number;
  learningRate: number;
  /** Strength of the pull toward the shipped weights (per weight, λ/2 · (w − w₀)²). */
  anchor: number;
}

interface Layer {
  w: Float64Array;
  b: Float64Array;
  inputs: number;
  outputs: number;
}

const toLayers = (m: MlpModel): Layer[] =>
  m.layers.map((l) => ({ w: Float64Array.from(l.weights.flat()), b: Float64Array.from(l.bias), inputs: l.weights[0]!.length, outputs: l.bias.length }));

function standardised(m: MlpModel, x: ArrayLike<number>): Float64Array {
  return Float64Array.from(x, (v, i) => (v - m.featureMean[i]!) / m.featureStd[i]!);
}

/** Activations of every layer (the input first), the last before the softmax. */
function forward(layers: readonly Layer[], x: Float64Array): Float64Array[] {
  const acts = [x];
  layers.forEach((l, li) => {
    const last = li === layers.length - 1;
    const input = acts[acts.length - 1]!;
    const y = new Float64Array(l.outputs);
    for (let o = 0; o < l.outputs; o++) {
      let s = l.b[o]!;
      const row = o * l.inputs;
      for (let i = 0; i < l.inputs; i++) s += l.w[row + i]! * input[i]!;
      y[o] = last ? s : Math.max(0, s);
    }
    acts.push(y);
  });
  return acts;
}

function softmax(z: Float64Array): Float64Array {
  const max = Math.max(...z);
  const e = z.map((v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/** Adds the gradient of one sample's loss (scaled by `scale`) into `grads`; returns that loss. */
function backward(layers: readonly Layer[], grads: readonly Layer[], x: Float64Array, label: number, scale: number): number {
  const acts = forward(layers, x);
  const p = softmax(acts[acts.length - 1]!);
  let delta = Float64Array.from(p, (v, c) => (v - (c === label ? 1 : 0)) * scale);
  for (let li = layers.length - 1; li >= 0; li--) {
    const l = layers[li]!;
    const g = grads[li]!;
    const input = acts[li]!;
    const back = new Float64Array(l.inputs);
    for (let o = 0; o < l.outputs; o++) {
      const d = delta[o]!;
      if (d === 0) continue;
      g.b[o]! += d;
      const row = o * l.inputs;
      for (let i = 0; i < l.inputs; i++) {
        g.w[row + i]! += d * input[i]!;
        back[i]! += d * l.w[row + i]!;
      }
    }
    // Through the previous layer's relu (the input itself has none).
    if (li > 0) for (let i = 0; i < back.length; i++) if (input[i]! <= 0) back[i] = 0;
    delta = back;
  }
  return -Math.log(Math.max(1e-12, p[label]!)) * scale;
}

/** The weighted mean cross-entropy of `samples` under `model` (what {@link tuneMlp} lowers, without the anchor). */
export function meanLoss(model: MlpModel, samples: readonly Sample[]): number {
  const layers = toLayers(model);
  const total = samples.reduce((s, x) => s + x.weight, 0);
  let loss = 0;
  for (const s of samples) loss += (-Math.log(Math.max(1e-12, softmax(forward(layers, standardised(model, s.features)).at(-1)!)[s.label]!)) * s.weight) / total;
  return loss;
}

/**
 * `model` fine-tuned on `samples` (labels in its class order), starting from its own weights.
 * Returns the new model and the loss per epoch (the weighted mean cross-entropy, before the step).
 */
export function tuneMlp(model: MlpModel, samples: readonly Sample[], options: TuneOptions): { model: MlpModel; losses: number[] } {
  if (samples.length === 0) throw new Error('no samples to fine-tune on');
  for (const s of samples) {
    if (!Number.isInteger(s.label) || s.label < 0 || s.label >= model.classes.length) throw new Error(`label ${s.label} is not one of ${model.classes.join(', ')}`);
    if (s.features.length !== model.featureMean.length) throw new Error(`a sample has ${s.features.length} features, the model reads ${model.featureMean.length}`);
  }
  const start = toLayers(model);
  const layers = toLayers(model);
  const m = layers.map((l) => ({ w: new Float64Array(l.w.length), b: new Float64Array(l.b.length) }));
  const v = layers.map((l) => ({ w: new Float64Array(l.w.length), b: new Float64Array(l.b.length) }));
  const inputs = samples.map((s) => standardised(model, s.features));
  const total = samples.reduce((s, x) => s + x.weight, 0);
  const [b1, b2, eps] = [0.9, 0.999, 1e-8];
  const losses: number[] = [];
  for (let epoch = 1; epoch <= options.epochs; epoch++) {
    const grads = layers.map((l) => ({ ...l, w: new Float64Array(l.w.length), b: new Float64Array(l.b.length) }));
    let loss = 0;
    samples.forEach((s, i) => (loss += backward(layers, grads, inputs[i]!, s.label, s.weight / total)));
    losses.push(loss);
    layers.forEach((l, li) => {
      for (const key of ['w', 'b'] as const) {
        const p = l[key];
        const g = grads[li]![key];
        const p0 = start[li]![key];
        const mk = m[li]![key];
        const vk = v[li]![key];
        for (let j = 0; j < p.length; j++) {
          const grad = g[j]! + options.anchor * (p[j]! - p0[j]!);
          mk[j] = b1 * mk[j]! + (1 - b1) * grad;
          vk[j] = b2 * vk[j]! + (1 - b2) * grad * grad;
          const mh = mk[j]! / (1 - b1 ** epoch);
          const vh = vk[j]! / (1 - b2 ** epoch);
          p[j]! -= (options.learningRate * mh) / (Math.sqrt(vh) + eps);
        }
      }
    });
  }
  return {
    model: {
      classes: model.classes,
      featureMean: model.featureMean,
      featureStd: model.featureStd,
      layers: layers.map((l) => ({ weights: Array.from({ length: l.outputs }, (_, o) => Array.from(l.w.subarray(o * l.inputs, (o + 1) * l.inputs))), bias: Array.from(l.b) })),
    },
    losses,
  };
}
