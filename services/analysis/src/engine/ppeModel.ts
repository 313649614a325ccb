/**
 * The learned PPE classifier at run time: two small multilayer perceptrons (head: hard hat / bare / other headgear;
 * torso: hi-vis / none) over the embedding of a crop by that kind's fine-tuned backbone
 * (`ppeEmbedding.ts`), with weights trained by `npm run train` (scripts/train/) and committed in
 * `services/analysis/models/ppe-classifier.json` next to the two backbones' weights (see
 * MODEL_CARD.md there). The forward pass is plain TypeScript: synchronous, no tfjs backend, a
 * fraction of a millisecond per crop, usable in any thread.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { committedModelFile } from './modelFiles.js';

/** One dense layer: `weights[out][in]`, `bias[out]`. */
export interface DenseLayer {
  weights: number[][];
  bias: number[];
}

/** A standardise → dense(relu)… → dense(softmax) classifier. */
export interface MlpModel {
  classes: string[];
  featureMean: number[];
  featureStd: number[];
  layers: DenseLayer[];
}

/**
 * The embedding the classifiers read (ppeEmbedding.ts); see {@link PpeModelFile.embedding}.
 * Change it with anything that changes the embedding (topology, nodes read, crop input sizes): a
 * model file trained on another embedding is refused, since its weights would read the wrong inputs.
 */
export const EMBEDDING_ID = 'centernet-mobilenetv3-tuned-se-5-10-12-14-extern1';

/**
 * The head classifier's input (liteBackbone.ts, ADR 0028): the frozen EfficientNet-Lite2's pooled
 * features of a 160 × 160 crop and twelve of its ImageNet logits. A model file trained on another is refused.
 */
export const HEAD_EMBEDDING_ID = 'efficientnet-lite2-160-pool-imagenet12';

/** The model file format this build reads (4: the head classifier reads EfficientNet-Lite2, ADR 0028; 3: three head classes). */
export const MODEL_VERSION = 4;

/** The committed model file. */
export interface PpeModelFile {
  version: typeof MODEL_VERSION;
  /** The torso classifier's input: this embedding of the crop ({@link EMBEDDING_ID}) by the tuned torso backbone. */
  embedding: typeof EMBEDDING_ID;
  /**
   * The head classifier's input: the EfficientNet-Lite2 embedding ({@link HEAD_EMBEDDING_ID}, v5),
   * or the tuned head backbone's ({@link EMBEDDING_ID}, v4's head, `ppe-backbone-head.bin`).
   */
  headEmbedding: typeof HEAD_EMBEDDING_ID | typeof EMBEDDING_ID;
  /**
   * The backbones, next to this file, by their SHA-256: the tuned tfjs weights of the torso
   * (`ppe-backbone-torso.bin`) and, when the head reads them, of the head (`ppe-backbone-head.bin`);
   * the EfficientNet-Lite2 ONNX file (`file`: its name) that the head check, and a v5 head, read.
   */
  backbones: { head?: { sha256: string }; torso: { sha256: string }; lite: { file: string; sha256: string } };
  /** Hard hat, bare head, other headgear (a cap, sun hat, beanie, hood: not a hard hat). */
  head: MlpModel & { classes: ['hat', 'bare', 'other'] };
  torso: MlpModel & { classes: ['vest', 'none'] };
  /** The head check (ADR 0028): whether a head crop shows a head at all, on the head classifier's input. */
  headCheck: MlpModel & { classes: ['head', 'background'] };
  /** Probability cut-offs of the verdicts, chosen on the training data's hold-out fold. */
  thresholds: {
    /** p(hat) at or above which a hard hat is `seen`. */
    hatSeen: number;
    /** p(bare) + p(other) at or above which the head wears no hard hat (`bare` or `headgear`, whichever is likelier). */
    noHatSeen: number;
    /** p(vest) at or above which hi-vis is `seen` (on a torso that also passes the fluorescent gate, ppe.ts). */
    vestSeen: number;
    /** p(none) at or above which hi-vis is `absent`. */
    vestAbsent: number;
    /** The head check's p(background) at or above which a head found on no person is no worker. */
    notHead: number;
  };
  /** Figures measured by the training script (reported in the model card). */
  metrics?: Record<string, unknown>;
}

/** The model file: the committed one, or `BARET_PPE_MODEL` (another run's, e.g. a cross-validation fold's: `npm run train -- --cv`). */
export const MODEL_PATH = process.env.BARET_PPE_MODEL ?? committedModelFile('ppe-classifier.json');

let cached: PpeModelFile | null = null;

/** Loads (once) the committed model. */
export function loadPpeModel(file = MODEL_PATH): PpeModelFile {
  if (cached && file === MODEL_PATH) return cached;
  const model = JSON.parse(readFileSync(file, 'utf8')) as PpeModelFile;
  if (model.version !== MODEL_VERSION) throw new Error(`PPE model ${file} has version ${String(model.version)}, this build reads version ${MODEL_VERSION}: run npm run train`);
  if (model.embedding !== EMBEDDING_ID) {
    throw new Error(`PPE model ${file} was trained on the embedding "${String(model.embedding)}", this build computes "${EMBEDDING_ID}": run npm run train`);
  }
  if (model.headEmbedding !== HEAD_EMBEDDING_ID && model.headEmbedding !== EMBEDDING_ID) {
    throw new Error(`PPE model ${file} has a head classifier on "${String(model.headEmbedding)}", this build computes "${HEAD_EMBEDDING_ID}" or "${EMBEDDING_ID}": run npm run train`);
  }
  if (file === MODEL_PATH) cached = model;
  return model;
}

/** Class probabilities of `features` under `model` (softmax of the last layer). */
export function predictMlp(model: MlpModel, features: ArrayLike<number>): number[] {
  let x: number[] = Array.from(features, (v, i) => (v - model.featureMean[i]!) / model.featureStd[i]!);
  model.layers.forEach((layer, li) => {
    const last = li === model.layers.length - 1;
    const y = new Array<number>(layer.bias.length);
    for (let o = 0; o < layer.bias.length; o++) {
      const w = layer.weights[o]!;
      let s = layer.bias[o]!;
      for (let i = 0; i < x.length; i++) s += w[i]! * x[i]!;
      y[o] = last ? s : Math.max(0, s);
    }
    x = y;
  });
  const max = Math.max(...x);
  const e = x.map((v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/** The EfficientNet-Lite2 ONNX file that `model` (read from `file`) names, beside that file. */
export function liteBackboneFile(model: PpeModelFile, file = MODEL_PATH): { file: string; sha256: string } {
  return { file: path.join(path.dirname(file), path.basename(model.backbones.lite.file)), sha256: model.backbones.lite.sha256 };
}
