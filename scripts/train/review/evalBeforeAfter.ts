/**
 * `npm run eval` before and after a fine-tune (`npm run train -- --from-review`, issue 53): the
 * same sets judged by the shipped model and by the tuned one (`BARET_PPE_MODEL`), each in its own
 * process, on sets nobody reviewed: the validation photos (`ppe-photos`) and the videos made of
 * them with camera motion. The reviewed set never comes from these (they are measured on, never
 * trained on).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedDataDir } from '@baret/platform';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EVAL = path.join(HERE, '..', '..', 'eval.ts');

export interface EvalSet {
  name: string;
  args: string[];
}

const photoSet = (name: string, classes: string[]): EvalSet => {
  const dir = sharedDataDir('ppe-photos', name);
  return { name, args: ['--images', path.join(dir, 'images'), '--labels', path.join(dir, 'labels'), ...classes] };
};

/** The sets measured before and after; `videos`: also the videos made of the validation photos (a few minutes each way). */
export function evalSets(videos: boolean): EvalSet[] {
  const sets = [
    photoSet('safety-vest-v4', ['--helmet', '0', '--bare-head', '2', '--vest', '1', '--no-vest', '3', '--relabel', path.join(HERE, '..', '..', 'eval', 'relabel-safety-vest-v4.json')]),
    photoSet('safety-gear-test', ['--helmet', '0', '--bare-head', '3']),
  ];
  if (videos) sets.push({ name: 'videos made of validation photos', args: ['--made'] });
  return sets;
}

/**
 * `npm run eval -- ARGS` in a child process with `modelFile` (`BARET_PPE_MODEL`; null: the shipped
 * model): the JSON line it ends with. `progress`: its stderr (progress bar, tables) shown as it
 * runs; otherwise kept for the error when it fails.
 */
export function evalJson<T = Record<string, unknown>>(args: readonly string[], modelFile: string | null, progress = false): Promise<T> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    if (modelFile) env.BARET_PPE_MODEL = modelFile;
    else delete env.BARET_PPE_MODEL;
    const child = spawn(process.execPath, ['--import', 'tsx', EVAL, ...args], { stdio: ['ignore', 'pipe', progress ? 'inherit' : 'pipe'], env });
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`npm run eval -- ${args.join(' ')} failed (exit ${String(code)})${err ? `: ${err.slice(-2000)}` : ''}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as T);
    });
  });
}

/** One set judged with `modelFile` (or the shipped model), quietly: its JSON line. */
export async function evalLine(set: EvalSet, modelFile: string | null, log: (s: string) => void): Promise<Record<string, unknown>> {
  const line = await evalJson(set.args, modelFile);
  log(`  ${set.name}, ${modelFile ? 'tuned' : 'shipped'}: done\n`);
  return line;
}

type Figure = { precision?: number | null; recall?: number | null; tp: number; fp: number; fn: number };
const pct = (v: number | null | undefined): string => (v === null || v === undefined ? '—' : `${(v * 100).toFixed(1)}`);
const cell = (f: Figure | undefined): string => (f ? `${pct(f.precision)} / ${pct(f.recall)} (tp ${f.tp}, fp ${f.fp}, fn ${f.fn})` : '—');

/** The rows a person reads: per measure, before and after. */
export function compareRows(set: string, before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const rows: string[] = [];
  if ('summary' in before) {
    type S = { in_range: number; clips: number; false_flags: { hard_hat: number; hi_vis: number }; missed: { hard_hat: number; hi_vis: number } };
    const [b, a] = [before.summary as S, after.summary as S];
    const s = (x: S) => `${x.in_range}/${x.clips} counted in range; false flags: hard hat ${x.false_flags.hard_hat}, hi-vis ${x.false_flags.hi_vis}; missed: hard hat ${x.missed.hard_hat}, hi-vis ${x.missed.hi_vis}`;
    rows.push(`| ${set} | videos | ${s(b)} | ${s(a)} |`);
    return rows;
  }
  for (const group of ['workers', 'measures'] as const) {
    const b = (before[group] ?? {}) as Record<string, Figure>;
    const a = (after[group] ?? {}) as Record<string, Figure>;
    for (const k of Object.keys(b)) rows.push(`| ${set} | ${group === 'workers' ? 'per worker' : 'image'} "${k}" | ${cell(b[k])} | ${cell(a[k])} |`);
  }
  return rows;
}
