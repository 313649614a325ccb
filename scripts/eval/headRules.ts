/**
 * `npx tsx scripts/eval/headRules.ts [--images DIR --labels DIR --helmet N --bare-head N[,N…]
 * [--other-headgear N] [--relabel FILE] | --training-holdout] [--hat 0.5,0.8,… ] [--no-hat 0.5,…]
 * [--margin 0,0.3,…] [--save FILE | --load FILE,FILE…]`
 *
 * How the hard-hat verdict rule moves the figures (issue 26): runs the offline analyzer once per
 * photo (as `npm run eval` does, `BARET_PPE_MODEL` for another model file) and keeps each worker's
 * head probabilities, then judges the same workers again under each rule of the grid —
 * hard hat `seen` when p(hat) ≥ hat and p(hat) − p(other) ≥ margin; "no hard hat" when
 * p(bare) + p(other) ≥ no-hat (the model's own `noHatSeen` when not given) — and prints the image
 * measures, the per-worker "no hard hat" figures and the labels of the heads called hard hat on
 * photos with no hard hat. `--save` writes the workers (one folder of photos); `--load` adds up
 * saved runs (the five cross-validation folds, each judged by its own fold model) without running
 * the analyzer. The model's own rule is checked to give back the analyzer's verdicts.
 *
 * `--training-holdout` (instead of `--images` … `--other-headgear`): the training hold-out photos of
 * the worksite subsets (`npm run train`'s 15 % by name hash, which no classifier or detector trains
 * on), each subset with its own class ids, saved together. Worksite hard hats are what
 * hard-hat-or-headwear's cross-validation cannot show, so a rule can be judged on both without
 * touching the validation photos (issue 38).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { warmUpDetector } from '../../services/analysis/src/engine/detector.js';
import { analyzePpeRaw, type PpePerson } from '../../services/analysis/src/engine/ppe.js';
import { loadPpeModel } from '../../services/analysis/src/engine/ppeModel.js';
import { CV_SUBSET, listTrainingPhotos, SUBSETS, TRAINING_DIR } from '../train/data.js';
import { parseYoloLabels } from '../yolo.js';
import {
  addConfusion,
  asJobFrame,
  emptyConfusion,
  headVerdictUnder,
  headConfusion,
  labelledPhotos,
  labelTextFor,
  matchLabels,
  measuresFor,
  photoSetOptions,
  predictionOf,
  readRelabel,
  tally,
  tallyWorkers,
  truthOf,
  workerOutcome,
  type ClassIds,
  type HeadConfusion,
  type HeadRule,
} from './measure.js';

type Worker = Pick<PpePerson, 'box' | 'head' | 'hardHat' | 'hiVis'> & { p?: [number, number, number] };
interface Photo {
  file: string;
  width: number;
  height: number;
  labelText: string;
  workers: Worker[];
}
interface Saved {
  classes: ClassIds;
  thresholds: { hatSeen: number; noHatSeen: number };
  photos: Photo[];
}
type Rule = HeadRule;

const { values } = parseArgs({
  options: {
    ...photoSetOptions,
    hat: { type: 'string', default: '' },
    'no-hat': { type: 'string', default: '' },
    margin: { type: 'string', default: '0' },
    'other-scale': { type: 'string', default: '1' },
    save: { type: 'string' },
    load: { type: 'string' },
    'training-holdout': { type: 'boolean', default: false },
  },
});
const nums = (s: string): number[] => (s ? s.split(',').map(Number) : []);

const verdict = headVerdictUnder;

/** The photo sets to judge: the given folder, or each worksite subset's training hold-out photos. */
async function photoSets(): Promise<Array<{ classes: ClassIds; files: Array<{ file: string; image: string; labelText: string }> }>> {
  if (!values['training-holdout']) {
    const classes: ClassIds = {
      helmet: Number(values.helmet),
      bareHead: nums(values['bare-head'] ?? ''),
      ...(values['other-headgear'] !== undefined ? { otherHeadgear: Number(values['other-headgear']) } : {}),
    };
    const relabel = values.relabel ? await readRelabel(values.relabel) : undefined;
    return [{ classes, files: await labelledPhotos(values.images!, values.labels!, relabel) }];
  }
  // Sizes are not needed here (only the fold): no image is read to list them.
  const holdout = (await listTrainingPhotos(async () => ({ width: 1, height: 1 }))).filter((p) => p.fold === 'holdout');
  return Promise.all(
    Object.entries(SUBSETS)
      .filter(([subset]) => subset !== CV_SUBSET)
      .map(async ([subset, cls]) => ({
        classes: { helmet: cls.helmet, bareHead: [cls.bare] },
        files: await Promise.all(
          holdout
            .filter((p) => p.subset === subset)
            .map(async (p) => ({ file: `${subset}/${p.file}`, image: p.imagePath, labelText: await labelTextFor(path.join(TRAINING_DIR, subset, 'labels'), p.file) })),
        ),
      })),
  );
}

async function run(): Promise<Saved[]> {
  // A saved file holds one run or several (--training-holdout: one per subset).
  if (values.load) return (await Promise.all(values.load.split(',').map(async (f) => [JSON.parse(await readFile(f, 'utf8')) as Saved | Saved[]].flat()))).flat();
  await warmUpDetector();
  const { hatSeen, noHatSeen } = loadPpeModel().thresholds;
  const saved: Saved[] = [];
  for (const { classes, files } of await photoSets()) saved.push({ classes, thresholds: { hatSeen, noHatSeen }, photos: await judged(files) });
  if (values.save) await writeFile(values.save, JSON.stringify(saved.length === 1 ? saved[0] : saved));
  return saved;
}

/** Each photo's workers as the analyzer judges them, with their head probabilities. */
async function judged(files: Array<{ file: string; image: string; labelText: string }>): Promise<Photo[]> {
  const photos: Photo[] = [];
  for (const [i, { file, image, labelText }] of files.entries()) {
    const frame = await asJobFrame(image);
    const persons = await analyzePpeRaw(frame);
    photos.push({
      file,
      width: frame.width,
      height: frame.height,
      labelText,
      workers: persons.map((p) => ({
        box: p.box,
        ...(p.head ? { head: p.head } : {}),
        hardHat: p.hardHat,
        hiVis: p.hiVis,
        ...(p.scores.hatProbability !== undefined ? { p: [p.scores.hatProbability, p.scores.bareProbability!, p.scores.otherHeadgearProbability!] as [number, number, number] } : {}),
      })),
    });
    process.stderr.write(`\r${i + 1}/${files.length}`);
  }
  process.stderr.write('\n');
  return photos;
}

/** The heads without a hard hat no worker took and those judged "cannot tell" (only the photo sets labelled with other headgear have a head table). */
function headsWithoutHat(heads: HeadConfusion): string {
  const rows = [heads['other headgear'], heads.bare];
  if (!rows.some((r) => Object.values(r).some((n) => n > 0))) return '';
  return `; heads without a hard hat not found ${rows.reduce((n, r) => n + r['not found'], 0)}, cannot tell ${rows.reduce((n, r) => n + r['cannot tell'], 0)}`;
}

const runs = await run();
const pct = (v: number | null): string => (v === null ? '  –  ' : (100 * v).toFixed(1).padStart(5));
const hatGrid = nums(values.hat);
const noHatGrid = nums(values['no-hat']);
const rulesOf = (s: Saved): Rule[] => {
  const out: Rule[] = [];
  for (const hat of hatGrid.length ? hatGrid : [s.thresholds.hatSeen]) for (const noHat of noHatGrid.length ? noHatGrid : [s.thresholds.noHatSeen]) for (const margin of nums(values.margin)) for (const otherScale of nums(values['other-scale'])) out.push({ hat, noHat, margin, otherScale });
  return out;
};
// The model's own rule must give back the analyzer's verdicts.
for (const s of runs) {
  const own = { hat: s.thresholds.hatSeen, noHat: s.thresholds.noHatSeen, margin: 0, otherScale: 1 };
  for (const ph of s.photos) for (const w of ph.workers) if (w.p && verdict(w.p, own) !== w.hardHat) throw new Error(`${ph.file}: the model's rule gives ${verdict(w.p, own)}, the analyzer ${w.hardHat}`);
}
const nRules = rulesOf(runs[0]!).length;
for (let r = 0; r < nRules; r++) {
  const outcomes = [];
  const heads = emptyConfusion();
  const falseHats: string[] = [];
  let label = '';
  for (const s of runs) {
    const rule = rulesOf(s)[r]!;
    label = `hat ≥ ${hatGrid.length ? rule.hat : "the model's"}, no hat ≥ ${noHatGrid.length ? rule.noHat : "the model's"}, margin ${rule.margin}, other ×${rule.otherScale}`;
    const measures = measuresFor(s.classes);
    for (const ph of s.photos) {
      const workers = ph.workers.map((w) => ({ ...w, hardHat: w.p ? verdict(w.p, rule) : w.hardHat }));
      const truth = truthOf(ph.labelText, s.classes);
      const predicted = predictionOf(workers, measures);
      outcomes.push({ truth, predicted, workers: workerOutcome(workers, ph.labelText, s.classes, ph.width, ph.height) });
      const t = headConfusion(workers, ph.labelText, s.classes, ph.width, ph.height);
      if (t) addConfusion(heads, t);
      if (process.env.SHOW_MISSED === '1' && truth['hard hat worn'] && !predicted['hard hat worn']) {
        falseHats.push(`missed ${ph.file.slice(0, 40)}: ${ph.workers.map((w, i) => `${workers[i]!.hardHat}${w.p ? ` p=${w.p.map((v) => v.toFixed(2)).join('/')}` : ''}`).join('; ')}`);
      }
      if (predicted['hard hat worn'] && !truth['hard hat worn']) {
        // Which labelled head each worker called hard hat belongs to.
        const headClasses = [s.classes.helmet, ...(s.classes.bareHead ?? [])];
        const objects = parseYoloLabels(ph.labelText).filter((o) => headClasses.includes(o.cls)).map((o) => ({ cls: o.cls, box: [o.box[0] * ph.width, o.box[1] * ph.height, o.box[2] * ph.width, o.box[3] * ph.height] as [number, number, number, number] }));
        const match = matchLabels(workers.map((w) => w.box), objects.map((o) => o.box), 'head', workers.map((w) => w.head));
        const called = workers.flatMap((w, i) => (w.hardHat === 'seen' ? [`${match[i] === undefined ? 'unlabelled' : `class ${objects[match[i]!]!.cls}`}${w.p ? ` p=${w.p.map((v) => v.toFixed(2)).join('/')}` : ''}`] : []));
        falseHats.push(`${ph.file.slice(0, 40)}: ${called.join('; ')}`);
      }
    }
  }
  const m = tally(outcomes, measuresFor(runs[0]!.classes));
  const wk = tallyWorkers(outcomes)['no hard hat']!;
  const f = (k: 'hard hat worn' | 'hard hat not worn'): string => `${pct(m[k]!.precision)} / ${pct(m[k]!.recall)} (${m[k]!.tp}/${m[k]!.fp}/${m[k]!.fn})`;
  console.log(`${label}: worn ${f('hard hat worn')}; not worn ${f('hard hat not worn')}; per worker no hat ${pct(wk.precision)} / ${pct(wk.recall)} (${wk.confirmed}/${wk.falseAlarms}/${wk.labelled - wk.confirmed}); caps→hat ${heads['other headgear']['hard hat']}, bare→hat ${heads.bare['hard hat']}, hats seen ${heads['hard hat']['hard hat']}/${Object.values(heads['hard hat']).reduce((a, b) => a + b, 0)}${headsWithoutHat(heads)}`);
  if (process.env.SHOW_FALSE_HATS === '1') for (const l of falseHats) console.log(`   false "worn": ${l}`);
}
