/**
 * The video evaluation (issue 51): clips through the job path as users run it — a real Baret
 * process (embedded, offline analyzer), `POST /analyze` with the default options — and the report
 * held against what a person sees in each clip (`truth.json`).
 *
 * Per clip it prints the workers counted against the truth's range, the workers flagged per item
 * (hard hat, hi-vis), the false violations (workers flagged for an item every worker wears), the
 * missed ones (an item nobody wears, a worker not flagged), the workers Baret could not judge
 * ("cannot tell"), and how long the job took against the clip's own length.
 *
 * Truth (the format of `../shared/data/ppe-videos/truth.json`): per clip file name,
 * `{ "workers": [lo, hi], "hard_hat": "all" | "none" | "one_bare" | "unclear", "hi_vis": … }` —
 * `all`: every worker wears it; `none`: nobody does; `one_bare`: exactly one worker goes without;
 * `unclear`: not scored.
 */
import { execFile } from 'node:child_process';
import { readFile, readdir, stat, writeFile, mkdir } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { api, startBaret, unlimitedAdmin } from '../../tests/helpers/process.js';

/** Who wears an item in a clip (see the file's comment). */
export type Wearing = 'all' | 'none' | 'one_bare' | 'unclear';

export interface ClipTruth {
  workers: [number, number];
  hard_hat: Wearing;
  hi_vis: Wearing;
  scene?: string;
}

export type Truth = Record<string, ClipTruth>;

/** The items the offline analyzer judges, by a code of their catalogue group. */
export const ITEMS = { hard_hat: 'pic1', hi_vis: 'pic23' } as const;
export type Item = keyof typeof ITEMS;

const WEARING = new Set<Wearing>(['all', 'none', 'one_bare', 'unclear']);

/** Reads and checks a truth file: every entry but `_` (a comment) must be a clip's truth. */
export async function readTruth(file: string): Promise<Truth> {
  const raw = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  const out: Truth = {};
  for (const [clip, value] of Object.entries(raw)) {
    if (clip === '_') continue;
    const t = value as Partial<ClipTruth>;
    const range = t.workers;
    if (!Array.isArray(range) || range.length !== 2 || !range.every((n) => Number.isInteger(n) && n >= 0) || range[0]! > range[1]!) {
      throw new Error(`${clip}: "workers" must be [lo, hi], two whole numbers, lo ≤ hi`);
    }
    for (const item of Object.keys(ITEMS) as Item[]) {
      if (!WEARING.has(t[item] as Wearing)) throw new Error(`${clip}: "${item}" must be one of ${[...WEARING].join(', ')}`);
    }
    out[clip] = { workers: [range[0]!, range[1]!], hard_hat: t.hard_hat!, hi_vis: t.hi_vis!, ...(t.scene ? { scene: t.scene } : {}) };
  }
  return out;
}

/** The parts of a job's result the evaluation reads. */
export interface JobResult {
  workers_seen: number | null;
  no_worker_seen?: boolean;
  violations: Array<{ group: string[]; worker: number; time_sec: number; end_sec: number; reason?: string | null }>;
  /** One verdict per worker and item (issue 51); absent in results of older builds. */
  workers?: Array<{ worker: number; items: Record<string, { verdict: string }> }>;
}

/** One clip's figures. */
export interface ClipFigures {
  clip: string;
  status: string;
  seconds: number;
  length_sec: number | null;
  workers: number | null;
  range: [number, number];
  in_range: boolean;
  /** Workers flagged per item (distinct workers with a violation of it). */
  flagged: Record<Item, number>;
  /** Workers flagged for an item every worker wears (truth `all`), or beyond the one who goes without (`one_bare`). */
  false_flags: Record<Item, number>;
  /** Workers that should have been flagged and were not (truth `none`: every counted worker; `one_bare`: one). */
  missed: Record<Item, number>;
  /** Workers Baret reports it could not judge for the item. */
  cannot_tell: Record<Item, number | null>;
  truth: Record<Item, Wearing>;
}

/** Holds one job's result against a clip's truth. */
export function score(clip: string, truth: ClipTruth, result: JobResult | null, status: string, seconds: number, lengthSec: number | null): ClipFigures {
  const workers = result ? (result.workers_seen ?? 0) : null;
  const per = <T>(f: (item: Item) => T): Record<Item, T> => ({ hard_hat: f('hard_hat'), hi_vis: f('hi_vis') });
  const flagged = per((item) => new Set((result?.violations ?? []).filter((v) => v.group.includes(ITEMS[item])).map((v) => v.worker)).size);
  const false_flags = per((item) => (truth[item] === 'all' ? flagged[item] : truth[item] === 'one_bare' ? Math.max(0, flagged[item] - 1) : 0));
  const expected = Math.min(truth.workers[1], Math.max(truth.workers[0], workers ?? 0));
  const missed = per((item) => (truth[item] === 'none' ? Math.max(0, expected - flagged[item]) : truth[item] === 'one_bare' ? (flagged[item] >= 1 ? 0 : 1) : 0));
  const cannot_tell = per((item) =>
    result?.workers ? result.workers.filter((w) => Object.entries(w.items).some(([group, v]) => group.split(',').includes(ITEMS[item]) && v.verdict === 'cannot_tell')).length : null,
  );
  return {
    clip,
    status,
    seconds: Math.round(seconds * 10) / 10,
    length_sec: lengthSec,
    workers,
    range: truth.workers,
    in_range: workers !== null && workers >= truth.workers[0] && workers <= truth.workers[1],
    flagged,
    false_flags,
    missed,
    cannot_tell,
    truth: { hard_hat: truth.hard_hat, hi_vis: truth.hi_vis },
  };
}

/** The clips of a folder that its truth names, in name order (a clip without truth is skipped, and said so). */
export async function clipsIn(dir: string, truth: Truth): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => /\.(mp4|mov|mkv|webm|avi)$/i.test(f)).sort();
  for (const f of files) if (!truth[f]) process.stderr.write(`skipping ${f}: not in the truth file\n`);
  for (const name of Object.keys(truth)) if (!files.includes(name)) throw new Error(`the truth names ${name}, which is not in ${dir}`);
  return files.filter((f) => truth[f]);
}

function videoLength(path: string): Promise<number | null> {
  return new Promise((resolve) =>
    execFile('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path], (err, out) => resolve(err ? null : Math.round(Number(out) * 10) / 10 || null)),
  );
}

/** A running Baret process with a confirmed admin whose quota has no lifetime limit. */
async function baretForEval(): Promise<{ url: string; token: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'baret-eval-videos-'));
  const email = 'eval@example.com';
  const baret = await startBaret({ BARET_DATA_DIR: dir, WEB_DIST_DIR: dir, BARET_ADMIN_EMAILS: email, RATE_LIMIT_PER_MINUTE: '100000000' });
  const stop = async () => {
    baret.child.kill('SIGTERM');
    await baret.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const token = await unlimitedAdmin(baret.url, dir, email, { lifetime_limit: null, daily_limit: null, monthly_limit: null });
    return { url: baret.url, token, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** One clip through `POST /analyze` with the default options (the payload names none); its result and time. */
async function analyse(url: string, token: string, path: string, out?: string): Promise<{ status: string; seconds: number; result: JobResult | null; error?: string }> {
  const form = new FormData();
  form.append('payload', JSON.stringify({}));
  form.append('file', new Blob([await readFile(path)], { type: 'video/mp4' }), basename(path));
  const started = Date.now();
  const res = await fetch(`${url}/analyze`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  if (res.status !== 202) throw new Error(`POST /analyze answered ${res.status} for ${basename(path)}: ${await res.text()}`);
  const { job_id: id } = (await res.json()) as { job_id: string };
  for (;;) {
    const { body } = await api<{ status: string; result: JobResult | null; error?: string }>(url, `/jobs/${id}`, { token });
    if (['done', 'error', 'cancelled'].includes(body.status)) {
      const seconds = (Date.now() - started) / 1000;
      if (out) await saveEvidence(url, token, id, body, join(out, basename(path).replace(/\.[^.]+$/, '')));
      return { status: body.status, seconds, result: body.result, ...(body.error ? { error: body.error } : {}) };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The job's result and every violation's evidence crop, for a person to look at (`--out DIR`). */
async function saveEvidence(url: string, token: string, id: string, job: { result: JobResult | null }, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'job.json'), JSON.stringify(job, null, 2));
  for (const [n] of (job.result?.violations ?? []).entries()) {
    const res = await fetch(`${url}/jobs/${id}/violations/${n}`, { headers: { authorization: `Bearer ${token}` } });
    if (res.ok) await writeFile(join(dir, `violation-${n}.jpg`), Buffer.from(await res.arrayBuffer()));
  }
}

/** Every clip through a fresh Baret process, one after the other (each job alone: its time is its own). */
export async function evaluateClips(clips: Array<{ path: string; truth: ClipTruth }>, opts: { out?: string; onClip?: (f: ClipFigures) => void } = {}): Promise<ClipFigures[]> {
  const baret = await baretForEval();
  const figures: ClipFigures[] = [];
  try {
    for (const clip of clips) {
      const { status, seconds, result, error } = await analyse(baret.url, baret.token, clip.path, opts.out);
      if (status !== 'done') process.stderr.write(`${basename(clip.path)}: the job ended ${status}${error ? `: ${error}` : ''}\n`);
      const f = score(basename(clip.path), clip.truth, result, status, seconds, await videoLength(clip.path));
      figures.push(f);
      opts.onClip?.(f);
    }
  } finally {
    await baret.stop();
  }
  return figures;
}

/** The sums over clips: how many in range, false flags and misses per item, the slowest clip against its length. */
export function summarise(figures: readonly ClipFigures[]) {
  const sum = (f: (c: ClipFigures) => number) => figures.reduce((s, c) => s + f(c), 0);
  return {
    clips: figures.length,
    in_range: figures.filter((c) => c.in_range).length,
    false_flags: { hard_hat: sum((c) => c.false_flags.hard_hat), hi_vis: sum((c) => c.false_flags.hi_vis) },
    missed: { hard_hat: sum((c) => c.missed.hard_hat), hi_vis: sum((c) => c.missed.hi_vis) },
    slower_than_clip: figures.filter((c) => c.length_sec !== null && c.seconds >= c.length_sec).length,
    load_average: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

const wearing: Record<Wearing, string> = { all: 'all wear', none: 'nobody wears', one_bare: 'one without', unclear: 'unclear' };

/** The table a person reads (Markdown). */
export function formatClips(figures: readonly ClipFigures[], title: string): string {
  const cell = (c: ClipFigures, item: Item) => {
    const t = c.truth[item];
    const marks = [c.false_flags[item] > 0 ? `**${c.false_flags[item]} false**` : '', c.missed[item] > 0 ? `${c.missed[item]} missed` : ''].filter(Boolean).join(', ');
    const ct = c.cannot_tell[item] === null ? '' : `, ${c.cannot_tell[item]} cannot tell`;
    return `${wearing[t]}: ${c.flagged[item]} flagged${ct}${marks ? ` (${marks})` : ''}`;
  };
  const rows = figures.map(
    (c) =>
      `| ${c.clip} | ${c.range[0]}–${c.range[1]} | ${c.workers ?? '—'}${c.in_range ? '' : ' ✗'} | ${cell(c, 'hard_hat')} | ${cell(c, 'hi_vis')} | ${c.seconds.toFixed(1)} s / ${c.length_sec ?? '?'} s |`,
  );
  return [`## ${title}`, '', '| clip | workers (truth) | counted | hard hat | hi-vis | job / clip length |', '|---|---:|---:|---|---|---:|', ...rows].join('\n');
}

export async function isFile(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isFile() ?? false;
}
