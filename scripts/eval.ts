/**
 * `npm run eval -- --images DIR --labels DIR --helmet 0 --bare-head 2 [--vest 1 --no-vest 3]
 * [--judge learned|colour] [--limit N]`
 *
 * Measures the offline analyzer on any folder of YOLO-labelled photos (boxes or polygons) through
 * the code path of a job's frame (see scripts/eval/measure.ts). A progress bar and readable tables
 * (image level, and per worker for the verdicts that raise violations) go to stderr; stdout gets exactly one JSON line:
 * `{"measures": {"hard hat worn": {"precision", "recall", "tp", "fp", "fn"}, …}, "images": n, "ms_per_image": …}`.
 * A measure whose classes were not given is left out.
 */
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { warmUpDetector } from '../services/analysis/src/engine/detector.js';
import { formatTable, formatWorkerTable, measureFolder, measuresFor, progressBar, type ClassIds, type Judge } from './eval/measure.js';

const USAGE = 'usage: npm run eval -- --images DIR --labels DIR --helmet N --bare-head N [--vest N --no-vest N] [--judge learned|colour] [--limit N]';

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

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isDirectory() ?? false;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        images: { type: 'string' },
        labels: { type: 'string' },
        helmet: { type: 'string' },
        'bare-head': { type: 'string' },
        vest: { type: 'string' },
        'no-vest': { type: 'string' },
        judge: { type: 'string', default: 'learned' },
        limit: { type: 'string' },
      },
      strict: true,
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  if (!values.images || !(await isDir(values.images))) fail('--images must be a folder of photos');
  if (!values.labels || !(await isDir(values.labels))) fail('--labels must be a folder of YOLO label files');
  if (values.judge !== 'learned' && values.judge !== 'colour') fail('--judge must be learned or colour');
  const classes: ClassIds = {
    helmet: classId('helmet', values.helmet),
    bareHead: classId('bare-head', values['bare-head']),
    vest: classId('vest', values.vest),
    noVest: classId('no-vest', values['no-vest']),
  };
  if (measuresFor(classes).length === 0) fail('name at least one class (--helmet, --bare-head, --vest, --no-vest)');
  const limit = values.limit === undefined ? undefined : classId('limit', values.limit);
  process.stderr.write('loading the detector…\n');
  await warmUpDetector();
  const result = await measureFolder({
    imagesDir: values.images,
    labelsDir: values.labels,
    classes,
    judge: values.judge as Judge,
    limit,
    onProgress: (done, total, file) => process.stderr.write(progressBar(done, total, file)),
  });
  process.stderr.write('\n\n' + formatTable(result.measures, `${result.images.length} images`) + '\n');
  if (Object.keys(result.workers).length > 0) process.stderr.write('\n' + formatWorkerTable(result.workers) + '\n\n');
  process.stderr.write(`${result.msPerImage.toFixed(0)} ms per image (detector + PPE judge "${values.judge}")\n`);
  const round = (v: number | null): number | null => (v === null ? null : Math.round(v * 10000) / 10000);
  const measures = Object.fromEntries(Object.entries(result.measures).map(([k, f]) => [k, { ...f, precision: round(f.precision), recall: round(f.recall) }]));
  process.stdout.write(JSON.stringify({ measures, images: result.images.length, ms_per_image: Math.round(result.msPerImage * 10) / 10 }) + '\n');
}

await main();
