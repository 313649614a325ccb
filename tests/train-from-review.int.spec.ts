/**
 * `npm run train -- --from-review DIR` (issue 53): the shipped classifiers fine-tuned on a reviewed
 * set, on top of the shipped model, with the shipped backbones. The set here is made in a scratch
 * folder from two training photos of safety-vest-v4-train (the export's class ids) whose labels a
 * "reviewer" turned round (every hard hat called bare, every vest none): the tuned model must learn
 * what the reviewer said, leave the shipped model file as it was, and run in the analyzer.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, sharedDataDir } from '@baret/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sizeOf } from '../scripts/train/detect.js';
import { trainFromReview, type FromReviewReport } from '../scripts/train/fromReview.js';
import { loadPpeModel, MODEL_PATH } from '../services/analysis/src/engine/ppeModel.js';

const run = promisify(execFile);
const source = sharedDataDir('ppe-training', 'safety-vest-v4-train');
const turned: Record<string, string> = { '0': '2', '2': '0', '1': '3', '3': '1' };
const sha = async (f: string) => createHash('sha256').update(await readFile(f)).digest('hex');

let scratch: string;
let set: string;
let out: string;
let shippedSha: string;
let report: FromReviewReport;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'baret-from-review-'));
  set = path.join(scratch, 'set');
  out = path.join(scratch, 'tuned');
  await mkdir(path.join(set, 'images'), { recursive: true });
  await mkdir(path.join(set, 'labels'));
  await writeFile(path.join(set, 'classes.txt'), 'helmet\nvest\nno_helmet\nno_vest\n');
  const files = (await readdir(path.join(source, 'images'))).sort().slice(9, 11);
  for (const f of files) {
    const stem = f.replace(/\.[^.]+$/, '');
    await copyFile(path.join(source, 'images', f), path.join(set, 'images', f));
    const labels = await readFile(path.join(source, 'labels', `${stem}.txt`), 'utf8');
    await writeFile(path.join(set, 'labels', `${stem}.txt`), labels.replace(/^(\d+) /gm, (_, c: string) => `${turned[c] ?? c} `));
  }
  shippedSha = await sha(MODEL_PATH);
  report = await trainFromReview(set, out, sizeOf, () => undefined, { replayEvery: 10, holdoutEvery: 4 });
}, 300_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('npm run train -- --from-review', () => {
  it('learns what the reviewer said about the reviewed crops, beside a replay of the shared photos', () => {
    expect(report.tuned).toEqual(['head', 'torso']);
    for (const kind of ['head', 'torso'] as const) {
      expect(report.crops[kind].reviewed).toBeGreaterThan(0);
      expect(report.crops[kind].replay).toBeGreaterThan(0);
      // The shipped model disagrees with the turned-round labels; the tuned one follows them.
      expect(report.before[kind].reviewed.accuracy!).toBeLessThan(0.5);
      expect(report.after[kind].reviewed.accuracy!).toBeGreaterThan(report.before[kind].reviewed.accuracy!);
      expect(report.losses[kind]!.last).toBeLessThan(report.losses[kind]!.first);
      // The shared hold-out fold is judged both ways.
      expect(report.before[kind].holdout.crops).toBeGreaterThan(0);
      expect(report.after[kind].holdout.accuracy).not.toBeNull();
    }
  });

  it('writes a model the analyzer reads, beside the shipped backbones, and leaves the shipped model as it was', async () => {
    expect(await sha(MODEL_PATH)).toBe(shippedSha);
    const tuned = loadPpeModel(report.model);
    const shipped = loadPpeModel();
    expect(tuned.thresholds).toEqual(shipped.thresholds);
    expect(tuned.backbones).toEqual(shipped.backbones);
    expect(tuned.torso.layers[0]!.weights).not.toEqual(shipped.torso.layers[0]!.weights);
    expect(tuned.metrics?.fromReview).toMatchObject({ photos: 2 });
    // npm run eval with the tuned model: the analyzer finds the backbones and head detector beside it.
    const { stdout } = await run(
      path.join(repoRoot(), 'node_modules', '.bin', 'tsx'),
      ['scripts/eval.ts', '--images', path.join(set, 'images'), '--labels', path.join(set, 'labels'), '--helmet', '0', '--bare-head', '2', '--limit', '1'],
      { cwd: repoRoot(), env: { ...process.env, BARET_PPE_MODEL: report.model }, maxBuffer: 10 * 1024 * 1024 },
    );
    expect((JSON.parse(stdout.trim().split('\n').pop()!) as { images: number }).images).toBe(1);
  }, 180_000);

  it('refuses a set with nothing labelled', async () => {
    const empty = path.join(scratch, 'empty');
    await mkdir(path.join(empty, 'images'), { recursive: true });
    await mkdir(path.join(empty, 'labels'));
    await writeFile(path.join(empty, 'classes.txt'), 'helmet\nvest\nno_helmet\nno_vest\n');
    await expect(trainFromReview(empty, path.join(scratch, 'nothing'), sizeOf, () => undefined)).rejects.toThrow(/no labelled finding/);
  });
});
