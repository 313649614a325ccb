/**
 * `npm run eval -- --images DIR --labels DIR --helmet 0 --bare-head 2[,1…] [--other-headgear 1]
 * [--vest 1 --no-vest 3] [--limit N]`
 *
 * Measures the offline analyzer on any folder of YOLO-labelled photos (boxes or polygons) through
 * the code path of a job's frame (see scripts/eval/measure.ts). `--bare-head` takes every class
 * that means "no hard hat" (bare heads, caps and hats), comma-separated; `--other-headgear` names
 * the class of other headgear for the three-way table (hard hat / other headgear / bare). A progress
 * bar and readable tables (image level, per worker for the verdicts that raise violations, the
 * three-way table) go to stderr; stdout gets exactly one JSON line:
 * `{"measures": {"hard hat worn": {"precision", "recall", "tp", "fp", "fn"}, …},
 *   "workers": {"no hard hat": {"precision", "recall", "tp", "fp", "fn"}, "no hi-vis": {…}},
 *   "heads": {"hard hat": {"hard hat": n, "other headgear": n, "bare": n, "cannot tell": n, "not found": n}, …},
 *   "images": n, "ms_per_image": …}`.
 * A measure whose classes were not given is left out; `heads` only with `--other-headgear`.
 * `--relabel FILE` applies label corrections (scripts/eval/relabel-safety-vest-v4.json: the hi-vis
 * rule of issue 26) before measuring.
 * `BARET_PPE_MODEL` points the analyzer at another model file (a cross-validation fold's, train.ts).
 * `--blur` (issue 30, ADR 0024) measures the blur: a job judges each frame before its faces are
 * blurred (the offline analyzer runs in-process; only blurred images are stored), so with blurring
 * on a job's verdicts are those of the first table, and the blur's own check is that the stored
 * image keeps no face. It then measures a second time with the analyzer shown the blurred photos
 * (what a model shown blurred faces does), prints both tables, how many points each measure drops
 * that way, and how many faces BlazeFace still finds on the blurred photos; the JSON line gets
 * `"blurred": {measures, workers, faces: {faceRegions, headRegions, remaining, imagesWithRemaining}},
 * "blur_drop": {"job": 0, "blurred_input": {"worst": points, "drops": {…}}}`.
 * `--blur-out DIR` (with `--blur`) writes each violation's crop whose patches cover more than 10 %
 * of the item judged — its worker's hard hat above the brim, or their vest or torso — as a PNG with
 * the labelled item (green), the frame's patches (red), those of faces found on the crop itself
 * (magenta) and the worker's box (yellow) drawn on it, to look at.
 */
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedDataDir } from '@baret/platform';
import { parseArgs } from 'node:util';
import { warmUpDetector } from '../services/analysis/src/engine/detector.js';
import { formatCover, measureCover, writeCropOver, type CoverFigures, type CoverRule } from './eval/cover.js';
import { writeMadeVideos } from './eval/motionVideos.js';
import { clipsIn, evaluateClips, formatClips, isFile, readTruth, summarise, type ClipTruth } from './eval/videos.js';
import { blurDrop, formatConfusion, formatTable, formatWorkerTable, labelledPhotos, measureFolder, measuresFor, photoSetOptions, progressBar, readRelabel, type ClassIds, type FolderResult } from './eval/measure.js';

const USAGE =
  'usage: npm run eval -- --images DIR --labels DIR --helmet N --bare-head N[,N…] [--other-headgear N] [--vest N --no-vest N] [--relabel FILE] [--limit N] [--blur [--blur-out DIR]]\n' +
  '       npm run eval -- --videos DIR [--truth FILE] [--made] [--out DIR]   (or --made alone)';

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function classId(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) fail(`--${name} must be a class id (an integer ≥ 0), got "${value}"`);
  return n;
}

function classIds(name: string, value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  const ids = value.split(',').map((v) => classId(name, v.trim())!);
  return [...new Set(ids)];
}

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isDirectory() ?? false;
}

/** `--videos` / `--made`: the video evaluation (see the top of this file). */
async function videos(args: { videos?: string; truth?: string; made?: boolean; out?: string }): Promise<void> {
  const clips: Array<{ path: string; truth: ClipTruth; set: string }> = [];
  if (args.videos) {
    if (!(await isDir(args.videos))) fail('--videos must be a folder of video clips');
    const truthFile = args.truth ?? join(args.videos, 'truth.json');
    if (!(await isFile(truthFile))) fail(`--truth: no truth file at ${truthFile}`);
    const truth = await readTruth(truthFile).catch((err: unknown) => fail(`--truth: ${(err as Error).message}`));
    for (const f of await clipsIn(args.videos, truth).catch((err: unknown) => fail((err as Error).message))) clips.push({ path: join(args.videos, f), truth: truth[f]!, set: args.videos });
  }
  const scratch = await mkdtemp(join(tmpdir(), 'baret-made-videos-'));
  try {
    if (args.made) {
      const truth = await writeMadeVideos(sharedDataDir('ppe-photos', 'safety-vest-v4'), scratch, (name) => process.stderr.write(`making ${name}…\n`));
      for (const [f, t] of Object.entries(truth)) clips.push({ path: join(scratch, f), truth: t, set: 'made' });
    }
    process.stderr.write(`${clips.length} clips through a Baret process (embedded, offline analyzer, default options)…\n`);
    const figures = await evaluateClips(clips, { out: args.out, onClip: (f) => process.stderr.write(`  ${f.clip}: ${f.workers ?? '—'} workers, ${f.seconds.toFixed(1)} s\n`) });
    const tables = [...new Set(clips.map((c) => c.set))].map((set) => {
      const rows = figures.filter((_, i) => clips[i]!.set === set);
      return { set, rows, summary: summarise(rows) };
    });
    for (const t of tables) {
      process.stderr.write(`\n${formatClips(t.rows, t.set === 'made' ? 'videos made of validation photos, with camera motion' : t.set)}\n`);
      const s = t.summary;
      process.stderr.write(
        `\nworkers counted inside the truth's range: ${s.in_range} of ${s.clips}; workers flagged for an item every worker wears: hard hat ${s.false_flags.hard_hat}, hi-vis ${s.false_flags.hi_vis}; ` +
          `workers missed: hard hat ${s.missed.hard_hat}, hi-vis ${s.missed.hi_vis}; jobs slower than their clip: ${s.slower_than_clip}. Load average ${s.load_average.join(' ')}.\n`,
      );
    }
    process.stdout.write(JSON.stringify({ clips: figures, summary: summarise(figures), sets: Object.fromEntries(tables.map((t) => [t.set, t.summary])) }) + '\n');
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--videos') || process.argv.includes('--made')) {
    let v;
    try {
      v = parseArgs({ options: { videos: { type: 'string' }, truth: { type: 'string' }, made: { type: 'boolean' }, out: { type: 'string' } }, strict: true }).values;
    } catch (err) {
      fail((err as Error).message);
    }
    return videos(v);
  }
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        ...photoSetOptions,
        vest: { type: 'string' },
        'no-vest': { type: 'string' },
        limit: { type: 'string' },
        blur: { type: 'boolean' },
        'blur-out': { type: 'string' },
      },
      strict: true,
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  if (values['blur-out'] && !values.blur) fail('--blur-out needs --blur');
  if (!values.images || !(await isDir(values.images))) fail('--images must be a folder of photos');
  if (!values.labels || !(await isDir(values.labels))) fail('--labels must be a folder of YOLO label files');
  const classes: ClassIds = {
    helmet: classId('helmet', values.helmet),
    bareHead: classIds('bare-head', values['bare-head']),
    vest: classId('vest', values.vest),
    noVest: classId('no-vest', values['no-vest']),
    otherHeadgear: classId('other-headgear', values['other-headgear']),
  };
  if (classes.otherHeadgear !== undefined && classes.helmet === undefined) fail('--other-headgear needs --helmet (the table compares hard hats, other headgear and bare heads)');
  if (classes.helmet !== undefined && (classes.bareHead?.includes(classes.helmet) || classes.otherHeadgear === classes.helmet)) fail('--helmet cannot also be a "no hard hat" class');
  if (measuresFor(classes).length === 0) fail('name at least one class (--helmet, --bare-head, --vest, --no-vest)');
  const limit = values.limit === undefined ? undefined : classId('limit', values.limit);
  const relabel = values.relabel === undefined ? undefined : await readRelabel(values.relabel).catch((err: unknown) => fail(`--relabel: ${(err as Error).message}`));
  process.stderr.write('loading the detector…\n');
  await warmUpDetector();
  const measure = (blur: boolean) =>
    measureFolder({
      imagesDir: values.images!,
      labelsDir: values.labels!,
      classes,
      limit,
      relabel,
      blur,
      onProgress: (done, total, file) => process.stderr.write(progressBar(done, total, `${blur ? '(faces blurred) ' : ''}${file}`)),
    });
  const result = await measure(false);
  let blurred: FolderResult | undefined;
  if (values.blur) {
    process.stderr.write('\n');
    blurred = await measure(true);
  }
  process.stderr.write('\n\n' + formatTable(result.measures, `${result.images.length} images`) + '\n');
  if (Object.keys(result.workers).length > 0) process.stderr.write('\n' + formatWorkerTable(result.workers) + '\n\n');
  if (result.heads) process.stderr.write(formatConfusion(result.heads) + '\n\n');
  process.stderr.write(`${result.msPerImage.toFixed(0)} ms per image (detector + PPE classifier)\n`);
  const drop = blurred ? blurDrop(result.measures, blurred.measures) : undefined;
  if (blurred && drop) {
    process.stderr.write('\nWith blurring on, a job judges each frame before it blurs the faces and stores it: its verdicts are the table above (0 points dropped).\n');
    process.stderr.write('\n' + formatTable(blurred.measures, 'analyzer shown the blurred photos') + '\n');
    if (Object.keys(blurred.workers).length > 0) process.stderr.write('\n' + formatWorkerTable(blurred.workers, 'per worker, analyzer shown the blurred photos') + '\n');
    const f = blurred.blur!;
    process.stderr.write(
      `\nblurred ${f.faceRegions} face regions (BlazeFace) and ${f.headRegions} head regions (head detector); ` +
        `BlazeFace still finds ${f.remaining} faces at its default score on ${f.imagesWithRemaining} of ${blurred.images.length} blurred photos as stored\n` +
        `largest drop of a measure if the analyzer were shown the blurred photos: ${drop.worst.toFixed(1)} points\n`,
    );
  }
  // Faces covered, not the evidence (issue 39): patches per photo against labelled heads, patches over vest or torso boxes.
  let cover: Partial<Record<CoverRule, CoverFigures>> | undefined;
  if (values.blur) {
    const photos = await labelledPhotos(values.images!, values.labels!, relabel, limit);
    if (values['blur-out']) await mkdir(values['blur-out'], { recursive: true });
    cover = {};
    for (const rule of ['every face', 'people'] as const) {
      const out = rule === 'people' ? values['blur-out'] : undefined;
      const figures = await measureCover(photos, classes, rule, (done, total) => process.stderr.write(progressBar(done, total, `(faces covered: ${rule})`)), out ? (c) => writeCropOver(out, c) : undefined);
      process.stderr.write('\n' + formatCover(figures, rule));
      cover[rule] = figures;
    }
  }
  const round = (v: number | null): number | null => (v === null ? null : Math.round(v * 10000) / 10000);
  const figures = (r: FolderResult) => ({
    measures: Object.fromEntries(Object.entries(r.measures).map(([k, f]) => [k, { ...f, precision: round(f.precision), recall: round(f.recall) }])),
    workers: Object.fromEntries(
      Object.entries(r.workers).map(([k, f]) => [k, { precision: round(f.precision), recall: round(f.recall), tp: f.confirmed, fp: f.falseAlarms, fn: f.labelled - f.confirmed }]),
    ),
  });
  const { measures, workers } = figures(result);
  process.stdout.write(
    JSON.stringify({
      measures,
      workers,
      ...(result.heads ? { heads: result.heads } : {}),
      images: result.images.length,
      ms_per_image: Math.round(result.msPerImage * 10) / 10,
      ...(blurred && drop ? { blurred: { ...figures(blurred), faces: blurred.blur }, blur_drop: { job: 0, blurred_input: drop } } : {}),
      ...(cover ? { cover } : {}),
    }) + '\n',
  );
}

await main();
