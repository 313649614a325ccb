/**
 * Image-level measures of the offline analyzer on a folder of YOLO-labelled photos (`npm run eval`,
 * `npm run bench`). Each photo goes through the path a job's frame takes in the offline analyzer:
 * JPEG → RGB → `analyzePpeRaw` (the same person detector and PPE judge as `OfflineAnalyzer`).
 *
 * Truth per image: "hard hat worn" when it has a hard-hat box; "hard hat not worn" when it has a
 * box of one of the "no hard hat" classes (bare heads, and other headgear where a label set has it)
 * and no hard-hat box; likewise for hi-vis with the vest / no-vest classes.
 * Prediction per image, the same rule on the analyzer's workers: "worn" when a worker's item is
 * `seen`; "not worn" when a worker's item is `bare` / `headgear` / `absent` and no worker's is `seen`.
 *
 * With an other-headgear class, every labelled head of the three kinds is also matched to a worker
 * and counted in a confusion table: label (hard hat / other headgear / bare) × verdict (hard hat /
 * other headgear / bare / cannot tell / not found).
 *
 * Per worker, for the verdicts that raise violations (`bare`, `absent`): each worker is matched to
 * the labelled head near the top of its box and the labelled torso in its middle (one label per
 * worker, nearest first), and its verdict compared with that label's class ({@link workerOutcome}).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { detectFaces, type RawImage } from '../../services/analysis/src/engine/detector.js';
import { blurFaces } from '../../services/analysis/src/engine/faceBlur.js';
import { analyzePpeRaw, noHardHat, type HardHatVerdict, type PpePerson } from '../../services/analysis/src/engine/ppe.js';
import { parseYoloLabels } from '../yolo.js';

export const MEASURES = ['hard hat worn', 'hard hat not worn', 'hi-vis worn', 'hi-vis not worn'] as const;
export type MeasureName = (typeof MEASURES)[number];

/** Class ids of a label set; a measure whose classes are absent is left out. */
export interface ClassIds {
  helmet?: number;
  /** The "no hard hat" classes: bare heads, and other headgear where the label set has it apart. */
  bareHead?: number[];
  vest?: number;
  noVest?: number;
  /** Other headgear (caps, hats, hoods: not a hard hat), for the three-way confusion table. */
  otherHeadgear?: number;
}

export type Verdicts = Partial<Record<MeasureName, boolean>>;

/** Which measures the given classes allow. */
export function measuresFor(cls: ClassIds): MeasureName[] {
  const out: MeasureName[] = [];
  if (cls.helmet !== undefined) out.push('hard hat worn');
  if (cls.bareHead !== undefined) out.push('hard hat not worn');
  if (cls.vest !== undefined) out.push('hi-vis worn');
  if (cls.noVest !== undefined) out.push('hi-vis not worn');
  return out;
}

/** Image-level truth from a label file's text (boxes or polygons; other classes ignored). */
export function truthOf(labelText: string, cls: ClassIds): Verdicts {
  const ids = new Set(parseYoloLabels(labelText).map((o) => o.cls));
  const has = (c: number | number[] | undefined): boolean => c !== undefined && [c].flat().some((id) => ids.has(id));
  const out: Verdicts = {};
  for (const m of measuresFor(cls)) {
    if (m === 'hard hat worn') out[m] = has(cls.helmet);
    else if (m === 'hard hat not worn') out[m] = has(cls.bareHead) && !has(cls.helmet);
    else if (m === 'hi-vis worn') out[m] = has(cls.vest);
    else out[m] = has(cls.noVest) && !has(cls.vest);
  }
  return out;
}

/**
 * A hard-hat verdict rule over a head's class probabilities (hat, bare, other headgear), for
 * measuring other rules than the model's (scripts/eval/headRules.ts): `seen` when p(hat) ≥ `hat`
 * and p(hat) − p(other) ≥ `margin`; else no hard hat (`headgear` or `bare`, whichever is likelier)
 * when p(bare) + p(other) ≥ `noHat`; else `unknown`. `otherScale` multiplies p(other) before the
 * three are renormalised (the classifier's "other" output bias shifted by its log). With margin 0
 * and scale 1 it is the analyzer's own rule (ppe.ts) at thresholds `hat` and `noHat`.
 */
export interface HeadRule {
  hat: number;
  noHat: number;
  margin: number;
  otherScale: number;
}

export function headVerdictUnder(q: readonly [number, number, number], r: HeadRule): HardHatVerdict {
  const sum = q[0] + q[1] + q[2] * r.otherScale;
  const [hat, bare, other] = [q[0] / sum, q[1] / sum, (q[2] * r.otherScale) / sum];
  if (hat >= r.hat && hat - other >= r.margin) return 'seen';
  if (bare + other >= r.noHat) return other > bare ? 'headgear' : 'bare';
  return 'unknown';
}

/** Image-level prediction from the analyzer's workers, for the given measures. */
export function predictionOf(persons: Pick<PpePerson, 'hardHat' | 'hiVis'>[], measures: MeasureName[]): Verdicts {
  const hat = persons.some((p) => p.hardHat === 'seen');
  const bare = persons.some((p) => noHardHat(p.hardHat));
  const vest = persons.some((p) => p.hiVis === 'seen');
  const noVest = persons.some((p) => p.hiVis === 'absent');
  const all: Record<MeasureName, boolean> = {
    'hard hat worn': hat,
    'hard hat not worn': bare && !hat,
    'hi-vis worn': vest,
    'hi-vis not worn': noVest && !vest,
  };
  return Object.fromEntries(measures.map((m) => [m, all[m]]));
}

export interface MeasureFigures {
  precision: number | null;
  recall: number | null;
  tp: number;
  fp: number;
  fn: number;
}

/** Precision and recall per measure over images (null where undefined: nothing predicted / nothing true). */
export function tally(outcomes: Array<{ truth: Verdicts; predicted: Verdicts }>, measures: MeasureName[]): Partial<Record<MeasureName, MeasureFigures>> {
  const out: Partial<Record<MeasureName, MeasureFigures>> = {};
  for (const m of measures) {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const o of outcomes) {
      const t = o.truth[m] === true;
      const p = o.predicted[m] === true;
      if (t && p) tp++;
      else if (p) fp++;
      else if (t) fn++;
    }
    out[m] = { precision: tp + fp === 0 ? null : tp / (tp + fp), recall: tp + fn === 0 ? null : tp / (tp + fn), tp, fp, fn };
  }
  return out;
}

/** Per-worker measures: the verdicts that raise a violation, checked against the worker's own label. */
export const WORKER_MEASURES = ['no hard hat', 'no hi-vis'] as const;
export type WorkerMeasureName = (typeof WORKER_MEASURES)[number];

export interface WorkerCounts {
  /** Workers given the verdict whose matched label agrees (a labelled bare head / torso without a vest). */
  confirmed: number;
  /** Workers given the verdict whose matched label shows the item worn: false violations. */
  falseAlarms: number;
  /** Workers given the verdict matched to no labelled head / torso of these classes (cannot be checked). */
  unmatched: number;
  /** Labelled heads / torsos without the item (every one, found or not). */
  labelled: number;
}

export interface WorkerFigures extends WorkerCounts {
  /** confirmed / (confirmed + falseAlarms). */
  precision: number | null;
  /** confirmed / labelled. */
  recall: number | null;
}

type Box = readonly [number, number, number, number];

/**
 * Which labelled box belongs to which worker box (index into `labels`, or undefined), one each,
 * nearest first: a head's centre must lie across the worker box and from 15 % above its top to 35 %
 * of its height below (nearest to 10 % down the centre line); a torso's centre across it and from
 * 10 % to 75 % of its height (nearest to 40 %). `heads`: the head each worker's verdict judged
 * (`PpePerson.head`), when known — a labelled head also belongs to the worker whose judged head
 * overlaps it (centre to centre within half the larger box's size), which a close-up needs: there
 * the head fills the worker's box and its centre lies below the box's top third.
 */
export function matchLabels(workers: readonly Box[], labels: readonly Box[], kind: 'head' | 'torso', heads?: ReadonlyArray<Box | undefined>): Array<number | undefined> {
  const [from, to, at] = kind === 'head' ? [-0.15, 0.35, 0.1] : [0.1, 0.75, 0.4];
  const pairs: Array<{ w: number; l: number; d: number }> = [];
  workers.forEach(([x, y, w, h], wi) => {
    const judged = kind === 'head' ? heads?.[wi] : undefined;
    labels.forEach(([lx, ly, lw, lh], li) => {
      const cx = lx + lw / 2;
      const cy = ly + lh / 2;
      const ds: number[] = [];
      if (cx >= x && cx <= x + w && cy >= y + from * h && cy <= y + to * h) ds.push(Math.abs(cx - (x + w / 2)) / w + Math.abs(cy - (y + at * h)) / h);
      if (judged) {
        const [hx, hy, hw, hh] = judged;
        const dx = Math.abs(cx - (hx + hw / 2)) / Math.max(hw, lw);
        const dy = Math.abs(cy - (hy + hh / 2)) / Math.max(hh, lh);
        if (dx <= 0.5 && dy <= 0.5) ds.push(dx + dy);
      }
      if (ds.length > 0) pairs.push({ w: wi, l: li, d: Math.min(...ds) });
    });
  });
  const out: Array<number | undefined> = workers.map(() => undefined);
  const taken = new Set<number>();
  for (const p of pairs.sort((a, b) => a.d - b.d)) {
    if (out[p.w] !== undefined || taken.has(p.l)) continue;
    out[p.w] = p.l;
    taken.add(p.l);
  }
  return out;
}

/** Per-worker counts of one photo (boxes in pixels of a `width` × `height` image; labels normalised). */
export function workerOutcome(
  persons: ReadonlyArray<Pick<PpePerson, 'box' | 'head' | 'hardHat' | 'hiVis'>>,
  labelText: string,
  cls: ClassIds,
  width: number,
  height: number,
): Partial<Record<WorkerMeasureName, WorkerCounts>> {
  const objects = parseYoloLabels(labelText).map((o) => ({ cls: o.cls, box: [o.box[0] * width, o.box[1] * height, o.box[2] * width, o.box[3] * height] as Box }));
  const out: Partial<Record<WorkerMeasureName, WorkerCounts>> = {};
  const count = (m: WorkerMeasureName, worn: number | undefined, without: number[] | undefined, kind: 'head' | 'torso', flagged: (p: (typeof persons)[number]) => boolean): void => {
    if (worn === undefined || without === undefined) return;
    const labels = objects.filter((o) => o.cls === worn || without.includes(o.cls));
    const match = matchLabels(
      persons.map((p) => p.box),
      labels.map((l) => l.box),
      kind,
      persons.map((p) => p.head),
    );
    const c: WorkerCounts = { confirmed: 0, falseAlarms: 0, unmatched: 0, labelled: labels.filter((l) => without.includes(l.cls)).length };
    persons.forEach((p, i) => {
      if (!flagged(p)) return;
      const l = match[i];
      if (l === undefined) c.unmatched++;
      else if (without.includes(labels[l]!.cls)) c.confirmed++;
      else c.falseAlarms++;
    });
    out[m] = c;
  };
  count('no hard hat', cls.helmet, cls.bareHead, 'head', (p) => noHardHat(p.hardHat));
  count('no hi-vis', cls.vest, cls.noVest === undefined ? undefined : [cls.noVest], 'torso', (p) => p.hiVis === 'absent');
  return out;
}

/** Rows and columns of the three-way head table. */
export const HEAD_KINDS = ['hard hat', 'other headgear', 'bare'] as const;
export type HeadKind = (typeof HEAD_KINDS)[number];
export const HEAD_VERDICT_COLUMNS = [...HEAD_KINDS, 'cannot tell', 'not found'] as const;
export type HeadVerdictColumn = (typeof HEAD_VERDICT_COLUMNS)[number];
/** Labelled heads by label (rows) and the verdict of the worker they belong to (columns). */
export type HeadConfusion = Record<HeadKind, Record<HeadVerdictColumn, number>>;

export const emptyConfusion = (): HeadConfusion =>
  Object.fromEntries(HEAD_KINDS.map((k) => [k, Object.fromEntries(HEAD_VERDICT_COLUMNS.map((c) => [c, 0]))])) as HeadConfusion;

const VERDICT_COLUMN: Record<PpePerson['hardHat'], HeadVerdictColumn> = { seen: 'hard hat', headgear: 'other headgear', bare: 'bare', unknown: 'cannot tell' };

/**
 * The three-way table of one photo: each labelled head (hard hat, other headgear, and the bare
 * classes that are not other headgear) matched to a worker as in {@link workerOutcome}, counted
 * under that worker's verdict, or under "not found" when no worker took it. Null without an
 * other-headgear class or a hard-hat class.
 */
export function headConfusion(
  persons: ReadonlyArray<Pick<PpePerson, 'box' | 'head' | 'hardHat'>>,
  labelText: string,
  cls: ClassIds,
  width: number,
  height: number,
  onHead?: (kind: HeadKind, box: Box, column: HeadVerdictColumn) => void,
): HeadConfusion | null {
  if (cls.otherHeadgear === undefined || cls.helmet === undefined) return null;
  const kindOf = (c: number): HeadKind | null =>
    c === cls.helmet ? 'hard hat' : c === cls.otherHeadgear ? 'other headgear' : cls.bareHead?.includes(c) ? 'bare' : null;
  const heads = parseYoloLabels(labelText).flatMap((o) => {
    const kind = kindOf(o.cls);
    return kind ? [{ kind, box: [o.box[0] * width, o.box[1] * height, o.box[2] * width, o.box[3] * height] as Box }] : [];
  });
  const match = matchLabels(
    persons.map((p) => p.box),
    heads.map((h) => h.box),
    'head',
    persons.map((p) => p.head),
  );
  const table = emptyConfusion();
  const workerOf = new Map(match.flatMap((l, w) => (l === undefined ? [] : [[l, w] as const])));
  heads.forEach((h, l) => {
    const w = workerOf.get(l);
    const column = w === undefined ? 'not found' : VERDICT_COLUMN[persons[w]!.hardHat];
    table[h.kind][column]++;
    onHead?.(h.kind, h.box, column);
  });
  return table;
}

/** Adds `b` into `a`. */
export function addConfusion(a: HeadConfusion, b: HeadConfusion): HeadConfusion {
  for (const k of HEAD_KINDS) for (const c of HEAD_VERDICT_COLUMNS) a[k][c] += b[k][c];
  return a;
}

/** A readable three-way table. */
export function formatConfusion(t: HeadConfusion): string {
  const lines = [`heads by label (rows) and verdict (columns)`, `${'label'.padEnd(16)}${HEAD_VERDICT_COLUMNS.map((c) => c.padStart(15)).join('')}`];
  for (const k of HEAD_KINDS) lines.push(`${k.padEnd(16)}${HEAD_VERDICT_COLUMNS.map((c) => String(t[k][c]).padStart(15)).join('')}`);
  return lines.join('\n');
}

/** Per-worker figures over photos. */
export function tallyWorkers(outcomes: ReadonlyArray<{ workers: Partial<Record<WorkerMeasureName, WorkerCounts>> }>): Partial<Record<WorkerMeasureName, WorkerFigures>> {
  const out: Partial<Record<WorkerMeasureName, WorkerFigures>> = {};
  for (const m of WORKER_MEASURES) {
    const counts = outcomes.map((o) => o.workers[m]).filter((c) => c !== undefined);
    if (counts.length === 0) continue;
    const sum = (k: keyof WorkerCounts): number => counts.reduce((s, c) => s + c[k], 0);
    const c: WorkerCounts = { confirmed: sum('confirmed'), falseAlarms: sum('falseAlarms'), unmatched: sum('unmatched'), labelled: sum('labelled') };
    out[m] = { ...c, precision: c.confirmed + c.falseAlarms === 0 ? null : c.confirmed / (c.confirmed + c.falseAlarms), recall: c.labelled === 0 ? null : c.confirmed / c.labelled };
  }
  return out;
}


/** Decodes a photo the way a job's frame reaches the analyzer: a JPEG (quality 90) decoded to RGB. */
/** What blurring the faces did to the photos (`--blur`). */
export interface BlurFigures {
  /** Regions blurred, by what found them. */
  faceRegions: number;
  headRegions: number;
  /** Faces BlazeFace still finds at its default score on the blurred photos (whole image), and on how many photos. */
  remaining: number;
  imagesWithRemaining: number;
}

export async function asJobFrame(file: string, blur?: BlurFigures): Promise<RawImage> {
  let jpeg: Buffer = await sharp(await readFile(file)).rotate().jpeg({ quality: 90 }).toBuffer();
  if (blur) {
    // As a job stores it: faces blurred, re-encoded; then searched again as the acceptance check does.
    const blurred = await blurFaces(jpeg, { quality: 90 });
    jpeg = blurred.jpeg;
    blur.faceRegions += blurred.regions.filter((r) => r.source === 'face').length;
    blur.headRegions += blurred.regions.filter((r) => r.source === 'head').length;
    const left = (await detectFaces(jpeg)).faces.length;
    blur.remaining += left;
    if (left > 0) blur.imagesWithRemaining++;
  }
  const { data, info } = await sharp(jpeg).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

export interface ImageOutcome {
  file: string;
  truth: Verdicts;
  predicted: Verdicts;
  /** Per-worker counts of the violation verdicts (measures whose classes were given). */
  workers: Partial<Record<WorkerMeasureName, WorkerCounts>>;
  /** The three-way head table of the photo (label sets with an other-headgear class). */
  heads: HeadConfusion | null;
  persons: number;
  ms: number;
}

export interface FolderResult {
  measures: Partial<Record<MeasureName, MeasureFigures>>;
  workers: Partial<Record<WorkerMeasureName, WorkerFigures>>;
  /** Summed over the photos that have one (null: none had an other-headgear class). */
  heads: HeadConfusion | null;
  images: ImageOutcome[];
  /** With faces blurred first (`blur`): what the blur did. */
  blur?: BlurFigures;
  msPerImage: number;
}

/** Label file of an image: same stem, `.txt`, in the labels folder (missing = no objects). */
export async function labelTextFor(labelsDir: string, imageFile: string): Promise<string> {
  return readFile(path.join(labelsDir, imageFile.replace(/\.[^.]+$/, '.txt')), 'utf8').catch(() => '');
}

/**
 * Label corrections (a JSON file: `{"changes": [{"file", "from", "to", "why"}]}`): in the label file
 * `file`, the line `from` gets the class `to`. A change whose line is not found is an error (the
 * labels changed under it).
 */
export interface Relabel {
  changes: Array<{ file: string; from: string; to: number; why: string }>;
}

export async function readRelabel(file: string): Promise<Relabel> {
  const r = JSON.parse(await readFile(file, 'utf8')) as Relabel;
  if (!Array.isArray(r.changes) || r.changes.some((c) => typeof c.file !== 'string' || typeof c.from !== 'string' || !Number.isInteger(c.to))) {
    throw new Error(`${file}: expected {"changes": [{"file", "from", "to", "why"}]}`);
  }
  return r;
}

/** A label file's text with the corrections for it applied. */
export function applyRelabel(labelFile: string, text: string, relabel: Relabel | undefined): string {
  const changes = relabel?.changes.filter((c) => c.file === labelFile) ?? [];
  if (changes.length === 0) return text;
  const lines = text.split(/\r?\n/);
  for (const c of changes) {
    const at = lines.findIndex((l) => l.trim() === c.from.trim());
    if (at < 0) throw new Error(`relabel: line "${c.from}" not found in ${labelFile}`);
    lines[at] = [String(c.to), ...c.from.trim().split(/\s+/).slice(1)].join(' ');
  }
  return lines.join('\n');
}

/** One photo to measure: its path, its label text and the class ids of its label set. */
export interface LabelledPhoto {
  image: string;
  labelText: string;
  classes: ClassIds;
}

/** Runs photos through the analyzer and measures them (measures: those every photo's classes allow). */
export async function measurePhotos(
  photos: LabelledPhoto[],
  onProgress?: (done: number, total: number, file: string) => void,
  opts: { blur?: boolean } = {},
): Promise<FolderResult> {
  const images: ImageOutcome[] = [];
  const blur: BlurFigures | undefined = opts.blur ? { faceRegions: 0, headRegions: 0, remaining: 0, imagesWithRemaining: 0 } : undefined;
  for (const [i, photo] of photos.entries()) {
    const measures = measuresFor(photo.classes);
    const truth = truthOf(photo.labelText, photo.classes);
    const frame = await asJobFrame(photo.image, blur);
    const started = performance.now();
    const persons = await analyzePpeRaw(frame);
    const ms = performance.now() - started;
    const workers = workerOutcome(persons, photo.labelText, photo.classes, frame.width, frame.height);
    // BARET_EVAL_HEADS=1: every labelled head's row of the three-way table on stderr (a diagnosis: which heads are not found).
    const listHead = process.env.BARET_EVAL_HEADS === '1' ? (kind: HeadKind, box: Box, column: HeadVerdictColumn) => process.stderr.write(`\nhead: ${path.basename(photo.image)} ${kind} [${box.map(Math.round).join(',')}] ${column}\n`) : undefined;
    const heads = headConfusion(persons, photo.labelText, photo.classes, frame.width, frame.height, listHead);
    images.push({ file: path.basename(photo.image), truth, predicted: predictionOf(persons, measures), workers, heads, persons: persons.length, ms });
    onProgress?.(i + 1, photos.length, path.basename(photo.image));
  }
  return {
    measures: tally(images, [...MEASURES]),
    workers: tallyWorkers(images),
    heads: images.some((i) => i.heads) ? images.reduce((t, i) => (i.heads ? addConfusion(t, i.heads) : t), emptyConfusion()) : null,
    images,
    msPerImage: images.reduce((s, i) => s + i.ms, 0) / Math.max(1, images.length),
    ...(blur ? { blur } : {}),
  };
}

/**
 * The photos of `imagesDir` (sorted by name, the first `limit`) with their label text from
 * `labelsDir`, corrected by `relabel`.
 */
export async function labelledPhotos(imagesDir: string, labelsDir: string, relabel?: Relabel, limit?: number): Promise<Array<{ file: string; image: string; labelText: string }>> {
  const files = (await readdir(imagesDir))
    .filter((f) => /\.(jpe?g|png|webp|bmp|tiff?)$/i.test(f))
    .sort()
    .slice(0, limit ?? Infinity);
  const out = [];
  for (const file of files) {
    const labelText = applyRelabel(file.replace(/\.[^.]+$/, '.txt'), await labelTextFor(labelsDir, file), relabel);
    out.push({ file, image: path.join(imagesDir, file), labelText });
  }
  return out;
}

/** Runs every image of `imagesDir` through the analyzer and measures it against `labelsDir`. */
export async function measureFolder(opts: {
  imagesDir: string;
  labelsDir: string;
  classes: ClassIds;
  limit?: number;
  /** Label corrections to apply ({@link readRelabel}). */
  relabel?: Relabel;
  /** Blur the faces of each photo first, as a job's stored frames are (issue 30). */
  blur?: boolean;
  onProgress?: (done: number, total: number, file: string) => void;
}): Promise<FolderResult> {
  const photos: LabelledPhoto[] = (await labelledPhotos(opts.imagesDir, opts.labelsDir, opts.relabel, opts.limit)).map((p) => ({ ...p, classes: opts.classes }));
  const result = await measurePhotos(photos, opts.onProgress, { blur: opts.blur });
  const measures = measuresFor(opts.classes);
  return { ...result, measures: Object.fromEntries(Object.entries(result.measures).filter(([m]) => measures.includes(m as MeasureName))) };
}

function pct(v: number | null): string {
  return v === null ? '   n/a' : `${(100 * v).toFixed(1).padStart(5)}%`;
}

/** A readable table of the measures. */
export function formatTable(measures: FolderResult['measures'], title = ''): string {
  const lines = [`${title.padEnd(20)}${'measure'.padEnd(20)}precision  recall     tp   fp   fn`];
  for (const m of MEASURES) {
    const f = measures[m];
    if (!f) continue;
    lines.push(`${''.padEnd(20)}${m.padEnd(20)}${pct(f.precision)}    ${pct(f.recall)}  ${[f.tp, f.fp, f.fn].map((n) => String(n).padStart(4)).join(' ')}`);
  }
  return lines.join('\n');
}

/** A readable table of the per-worker figures. */
export function formatWorkerTable(workers: FolderResult['workers'], title = 'per worker'): string {
  const lines = [
    `${title}: the verdicts that raise a violation, each worker matched to the labelled head or torso in its box`,
    `${''.padEnd(20)}${'verdict'.padEnd(14)}flagged  confirmed  false alarms  no label  labelled  precision  recall`,
  ];
  for (const m of WORKER_MEASURES) {
    const f = workers[m];
    if (!f) continue;
    // Each count right-aligned under its header: flagged, confirmed, false alarms, no label, labelled.
    const counts = [f.confirmed + f.falseAlarms + f.unmatched, f.confirmed, f.falseAlarms, f.unmatched, f.labelled].map((n, i) => String(n).padStart([7, 9, 12, 8, 8][i]!));
    lines.push(`${''.padEnd(20)}${m.padEnd(14)}${counts.join('  ')}  ${pct(f.precision)}     ${pct(f.recall)}`);
  }
  return lines.join('\n');
}

/** A one-line progress bar for stderr. */
export function progressBar(done: number, total: number, label = '', width = 30): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${label}`.slice(0, 120).padEnd(120);
}

/**
 * How many points each measure's precision and recall lose with faces blurred (positive: worse),
 * and the largest loss: the acceptance of issue 30 is at most 2 points.
 */
export function blurDrop(plain: FolderResult['measures'], blurred: FolderResult['measures']): { drops: Record<string, { precision: number | null; recall: number | null }>; worst: number } {
  const drops: Record<string, { precision: number | null; recall: number | null }> = {};
  let worst = 0;
  for (const m of MEASURES) {
    const a = plain[m];
    const b = blurred[m];
    if (!a || !b) continue;
    const d = (x: number | null, y: number | null): number | null => (x === null || y === null ? null : Math.round((x - y) * 1000) / 10);
    drops[m] = { precision: d(a.precision, b.precision), recall: d(a.recall, b.recall) };
    worst = Math.max(worst, drops[m].precision ?? 0, drops[m].recall ?? 0);
  }
  return { drops, worst };
}

/** The command-line options naming a labelled photo set and its classes, shared by `npm run eval` and scripts/eval/headRules.ts. */
export const photoSetOptions = {
  images: { type: 'string' },
  labels: { type: 'string' },
  helmet: { type: 'string' },
  'bare-head': { type: 'string' },
  'other-headgear': { type: 'string' },
  relabel: { type: 'string' },
} as const;
