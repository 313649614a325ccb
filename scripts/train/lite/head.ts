/**
 * The head classifier of `npm run train` (ADR 0028): a logistic regression on the frozen
 * EfficientNet-Lite2 embedding of every labelled head (crops.ts), fitted in Python
 * (train_head.py: onnxruntime and scikit-learn), then checked here: onnxruntime-node, the run
 * time's engine, must give the same probabilities on every hold-out crop within 1e-3, or nothing
 * is written. The thresholds are picked on those probabilities (thresholds.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LITE_INPUT, liteEmbedPixels, liteSession } from '../../../services/analysis/src/engine/liteBackbone.js';
import { predictMlp, type MlpModel } from '../../../services/analysis/src/engine/ppeModel.js';
import { curve, headThresholds, pick, type Curve } from '../thresholds.js';
import { BACKGROUND, liteCropBytes, LITE_DIR, type LiteCropsMeta } from './crops.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PARITY_TOLERANCE = 1e-3;
/** A head on no person is dropped only when the check is this sure (hold-out precision of "background"). */
const NOT_HEAD_PRECISION = 0.99;
const round = (v: number): number => Number(v.toPrecision(6));

export interface LiteHead {
  model: MlpModel;
  /** The head check: head / background. */
  check: MlpModel;
  /** Its threshold: the lowest p(background) whose hold-out precision reaches {@link NOT_HEAD_PRECISION}. */
  notHead: Curve;
  /** SHA-256 of the ONNX file the classifier reads. */
  onnxSha256: string;
  thresholds: { hat: Curve; noHat: Curve };
  holdout: { accuracy: number; crops: number; background: number; parity: number };
  report: Record<string, unknown>;
}

/** The classifier with its numbers rounded to 6 significant digits, as committed. */
export function rounded(model: MlpModel): MlpModel {
  return {
    classes: model.classes,
    featureMean: model.featureMean.map(round),
    featureStd: model.featureStd.map(round),
    layers: model.layers.map((l) => ({ weights: l.weights.map((row) => row.map(round)), bias: l.bias.map(round) })),
  };
}

/**
 * Fits the head classifier on the crops in {@link LITE_DIR} (all training crops, or all but the
 * photos of cross-validation fold `excludeCvFold`), writes train_head.py's output to `out`, checks
 * parity and picks the thresholds.
 */
export async function trainLiteHead(
  run: (command: string, args: string[], env?: NodeJS.ProcessEnv) => Promise<void>,
  py: string,
  meta: LiteCropsMeta,
  onnx: string,
  out: string,
  log: (s: string) => void,
  excludeCvFold?: number,
): Promise<LiteHead> {
  // A cross-validation fold takes Python's probabilities as they are: the shipped run checks that onnxruntime-node gives the same.
  const checkParity = excludeCvFold === undefined;
  const args = [path.join(HERE, 'train_head.py'), '--dir', LITE_DIR, '--onnx', onnx, '--write', out];
  if (excludeCvFold !== undefined) args.push('--exclude-cv-fold', String(excludeCvFold));
  // BARET_TRAIN_REUSE_TUNED=1: an earlier fit's output in `out` is taken as it is (e.g. a cross-validation fold's, to change only the head detector).
  if (process.env.BARET_TRAIN_REUSE_TUNED === '1' && existsSync(out)) log(`head: the Lite2 fit from ${out}\n`);
  else await run(py, args, { ...process.env, PYTHONHASHSEED: '0', OMP_NUM_THREADS: '2' });
  type Fitted = { model: MlpModel; holdout: { index: number[]; p: number[][] } };
  const fitted = JSON.parse(await readFile(out, 'utf8')) as Fitted & { headCheck: Fitted; report: Record<string, unknown> };
  const model = rounded(fitted.model);
  const check = rounded(fitted.headCheck.model);
  const bytes = await readFile(onnx);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const session = await liteSession({ file: onnx, sha256 });
  const crops = await open(path.join(LITE_DIR, 'crops-head.u8'));
  // Every hold-out crop (heads and background): the head classifier reads the heads, the check all.
  const rows = fitted.headCheck.holdout.index;
  const isHead = new Set(fitted.holdout.index);
  let p: number[][] = [];
  let pc: number[][] = [];
  const crop = Buffer.alloc(liteCropBytes);
  try {
    for (let start = 0; checkParity && start < rows.length; start += 16) {
      const batch = rows.slice(start, start + 16);
      const pixels = new Float32Array(batch.length * liteCropBytes);
      for (const [i, row] of batch.entries()) {
        await crops.read(crop, 0, liteCropBytes, row * liteCropBytes);
        pixels.set(crop, i * liteCropBytes);
      }
      for (const [i, e] of (await liteEmbedPixels(session, pixels, batch.length)).entries()) {
        if (isHead.has(batch[i]!)) p.push(predictMlp(model, e));
        pc.push(predictMlp(check, e));
      }
      log(`\rhead: onnxruntime-node on hold-out crops ${pc.length}/${rows.length} (${LITE_INPUT} px)`);
    }
  } finally {
    await crops.close();
  }
  if (!checkParity) {
    p = fitted.holdout.p;
    pc = fitted.headCheck.holdout.p;
  }
  log('\n');
  const worst = (mine: number[][], theirs: number[][]): number => Math.max(...mine.map((q, i) => Math.max(...q.map((v, c) => Math.abs(v - theirs[i]![c]!)))));
  const parity = Math.max(worst(p, fitted.holdout.p), worst(pc, fitted.headCheck.holdout.p));
  log(`head: onnxruntime-node and Python differ by at most ${parity.toExponential(2)} on ${p.length} hold-out crops\n`);
  if (!(parity <= PARITY_TOLERANCE)) throw new Error(`head: onnxruntime-node differs from Python by ${parity} (more than ${PARITY_TOLERANCE}); nothing written`);
  const scored = p.map((q, i) => ({ p: q, row: meta.head[fitted.holdout.index[i]!]! }));
  const notHead = pick(curve(pc.map((q, i) => ({ p: q[1]!, positive: meta.head[rows[i]!]!.label === BACKGROUND, passes: true }))), NOT_HEAD_PRECISION);
  const accuracy = scored.filter((s) => s.p.indexOf(Math.max(...s.p)) === s.row.label).length / Math.max(1, scored.length);
  return { model, check, notHead, onnxSha256: sha256, thresholds: headThresholds(scored), holdout: { accuracy: round(accuracy), crops: p.length, background: pc.length - p.length, parity: Number(parity.toExponential(2)) }, report: fitted.report };
}
