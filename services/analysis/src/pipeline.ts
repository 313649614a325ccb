/**
 * The analysis of one job in named steps (issue 39):
 *
 *   sample → judge → cover → store evidence → report
 *
 * - **sample** (`sample`): the video → the frames worth judging (person-focus or uniform sampling),
 *   with the workers the sampler's detector found in them.
 * - **judge** (`judge`): where a frame is judged — the frames in composites, the job type, and the
 *   vision model's verdict per worker and item, composite after composite ({@link AskPlan} says
 *   what each composite is asked about).
 * - **cover** (`cover`): where faces are covered — each frame once, before anything of it is stored;
 *   the covered frames are stored.
 * - **store evidence** (`storeEvidence`): composites built from the covered frames (searched once
 *   more, every face) and each violation’s crop.
 * - **report** (`report`): the result.
 *
 * A third-party model that must not see faces (the organisation's `blur_third_party`) is shown the
 * covered frames: then cover runs before judge. Each step is a unit with its own input and output,
 * its own journal entry (journal.ts) and its own test (test/pipeline.int.spec.ts): a job restarted
 * after a crash resumes at the step it had reached, without redoing the steps before it.
 */
import type { JobQueued } from '@baret/proto';
import type { ObjectStore } from '@baret/platform';
import type { Logger } from 'pino';
import sharp from 'sharp';
import { equipmentOptions, findTask, taskOptions } from './catalog/index.js';
import { buildComposites } from './engine/composites.js';
import type { FaceBlurFn, FaceBlurResult, People } from './engine/faceBlur.js';
import type { OfflineCompositeAnalysis } from './engine/offlineAnalyzer.js';
import { outputSize, readFramesAt, samplePersonFocus, sampleUniform, type DetectFn, type FrameMeta } from './engine/frames.js';
import { estimateCost, type ModelPricing } from './engine/pricing.js';
import { probeVideo } from './engine/probe.js';
import type { Composite, CompositeAnalysis, RelBox, SampledFrame, TokenUsage, VideoInfo, VisionAnalyzer } from './engine/types.js';
import type { CompositeLayout, Journal, JournalDoc, JournalEntry } from './journal.js';
import { AskPlan, Findings, type JobTypeSource, type Violation } from './result.js';
import { throttleProgress } from './samplingProgress.js';

/** The names of the steps, in the order a job reaches them (cover comes first when the model sees covered frames). */
export const STEPS = ['sample', 'judge', 'cover', 'store', 'report'] as const;
export type StepName = (typeof STEPS)[number];

/** The engines the steps work with (the worker's, see `WorkerDeps`). */
export interface PipelineEngines {
  objects: ObjectStore;
  analyzer: VisionAnalyzer;
  pricing: ModelPricing;
  detect: DetectFn;
  /** Covers the faces of an image before it is stored (issue 30; the detector pool's threads in the service). */
  blurFaces: FaceBlurFn;
  log: Logger;
  clock: () => Date;
}

/** What the steps need of the worker: its engines, the job, and how to journal and report. */
export interface StepContext extends PipelineEngines {
  job: JobQueued;
  attempt: number;
  signal: AbortSignal;
  journal: Journal;
  /** Journals the entries (and `change`), then reports those not reported before. */
  step(entries: JournalEntry[], change?: (doc: JournalDoc) => void): Promise<void>;
  entry(key: string, type: string, data?: Record<string, unknown>): JournalEntry;
  /** Reports without journaling (progress while sampling, the end of the job). */
  publish(entries: JournalEntry[]): Promise<void>;
  /** Throws when the job was cancelled. */
  checkpoint(): Promise<void>;
  /** The job's video on local disk (fetched once). */
  video(): Promise<string>;
  /** The organisation keeps unblurred copies for its managers (issue 30). */
  keepUnblurred: boolean;
  /** Records that the job has unblurred copies (so they are deleted when the managers may no longer see them). */
  markUnblurred(): Promise<void>;
  /** The model may be shown only covered frames (a third-party model, `blur_third_party`). */
  modelSeesCovered: boolean;
  /** Called as each step starts (tests stop a worker there). */
  onStep?: (name: StepName) => Promise<void>;
}

/** An error whose message is written for the user. */
export class UserFacingError extends Error {}

/** Where a job's unblurred evidence lives (only when its organisation lets managers see it): under the job's own prefix, so deleting a job deletes it. */
export const unblurredPrefix = (jobId: string): string => `jobs/${jobId}/unblurred/`;
export const compositeKey = (jobId: string, index: number): string => `jobs/${jobId}/composites/${index}.jpg`;
export const frameKey = (jobId: string, index: number): string => `jobs/${jobId}/frames/${String(index).padStart(3, '0')}.jpg`;
/** The same object's unblurred copy. */
const unblurredKey = (jobId: string, key: string): string => unblurredPrefix(jobId) + key.slice(`jobs/${jobId}/`.length);

const round = (n: number, digits: number): number => Math.round(n * 10 ** digits) / 10 ** digits;

async function readObject(objects: ObjectStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await objects.get(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// ---------------------------------------------------------------------------------------------
// sample

/** The output of sample: the video and its frames; the pixels only in the run that sampled them. */
export interface Sampled {
  info: VideoInfo;
  frames: FrameMeta[];
  pixels?: SampledFrame[];
}

/** The video → the frames to judge. Journal: `sampled` (the frames' times, regions and workers). */
export async function sample(ctx: StepContext): Promise<Sampled> {
  const done = ctx.journal.doc.sampled;
  if (done) return done;
  const params = ctx.job.params!;
  const path = await ctx.video();
  const info = await probeVideo(path, ctx.signal);
  await ctx.step([
    ctx.entry('video_opened', 'video_opened', { duration_sec: round(info.durationSec, 3), width: info.width, height: info.height, fps: round(info.fps, 3), codec: info.codec }),
  ]);
  await ctx.checkpoint();
  const count = params.targetComposites * params.framesPerComposite;
  const started = Date.now();
  // Progress while sampling (`frames_sampling`, throttled): reported in order, not journaled (a
  // resumed job samples again and reports its own, under this attempt's keys).
  let reported = 0;
  let progress = Promise.resolve();
  const onProgress = throttleProgress(
    (done, total) => {
      const entry = ctx.entry(`frames_sampling:${ctx.attempt}:${++reported}`, 'frames_sampling', { done, total });
      progress = progress.then(() => ctx.publish([entry])).catch((err: unknown) => ctx.log.warn({ err, job_id: ctx.job.jobId }, 'could not report sampling progress'));
    },
    { now: () => ctx.clock().getTime() },
  );
  let frames: SampledFrame[];
  try {
    frames =
      params.sampling === 'person'
        ? await samplePersonFocus(path, info, count, ctx.detect, { signal: ctx.signal, onProgress })
        : await sampleUniform(path, info, count, { signal: ctx.signal, onProgress });
  } finally {
    await progress; // every progress report is out before the next step's
  }
  if (frames.length === 0) throw new UserFacingError('No frames could be read from this video.');
  const metas = frames.map(({ jpeg: _jpeg, ...meta }) => meta);
  await ctx.step(
    [
      ctx.entry('frames_sampled', 'frames_sampled', {
        count: frames.length,
        sampling: params.sampling,
        times_sec: frames.map((f) => round(f.timeSec, 2)),
        elapsed_ms: Date.now() - started,
      }),
    ],
    (doc) => (doc.sampled = JSON.parse(JSON.stringify({ info, frames: metas })) as Sampled),
  );
  return { info, frames: metas, pixels: frames };
}

/** The sampled frames' pixels, decoded once: the sampler's, or (a resumed job) read again from the video at their times. */
export function framePixels(ctx: StepContext, sampled: Sampled): () => Promise<SampledFrame[]> {
  let pixels: Promise<SampledFrame[]> | undefined = sampled.pixels && Promise.resolve(sampled.pixels);
  return () => (pixels ??= ctx.video().then((path) => readFramesAt(path, sampled.info, sampled.frames, { signal: ctx.signal })));
}

/**
 * The frames of `indices` read again from the video at its own size (issue 53: a violation's crop
 * at the frame's full resolution, not the sampler's {@link MAX_FRAME_SIDE} pixels), by frame index.
 * None when the sampler already decoded the video at its own size; a frame that cannot be read
 * again is left out (its crop is cut from the sampled frame, as before).
 */
export function fullSizeFrames(ctx: StepContext, sampled: Sampled): (indices: readonly number[]) => Promise<Map<number, SampledFrame>> {
  return async (indices) => {
    const wanted = sampled.frames.filter((f) => indices.includes(f.index));
    const { width, height } = outputSize(sampled.info);
    if (wanted.length === 0 || (width >= sampled.info.width && height >= sampled.info.height)) return new Map();
    try {
      const frames = await readFramesAt(await ctx.video(), sampled.info, wanted, { maxSide: Math.max(sampled.info.width, sampled.info.height), signal: ctx.signal });
      return new Map(frames.map((f) => [f.index, f]));
    } catch (err) {
      ctx.signal.throwIfAborted();
      ctx.log.warn({ err }, 'the frames of the violations could not be read again at the video size; their crops are cut from the sampled frames');
      return new Map();
    }
  };
}

// ---------------------------------------------------------------------------------------------
// judge

/** The output of judge: the job type and every composite's verdicts, with their cost. */
export interface Judged {
  jobType: string;
  jobTypeSource: JobTypeSource;
  jobTypeConfidence: number | null;
  findings: Findings;
  usage: TokenUsage;
  cost: number;
  currency: string;
  /**
   * The workers the judge found, by frame index (issue 39): their person and head boxes as
   * fractions of the frame, whose faces cover covers. A frame not here was not judged (or the model
   * does not say where its workers are): every face found in it is covered.
   */
  people: Map<number, FramePeople>;
}

/** The workers of a frame, as fractions of it. */
export interface FramePeople {
  persons: RelBox[];
  heads: RelBox[];
  /** The faces the offline judge's search of the whole frame found (BlazeFace at its default score), when it searched it. */
  faces?: Array<{ box: RelBox; score: number }>;
}

const layoutOf = (c: Composite): CompositeLayout => ({ index: c.index, width: c.width, height: c.height, cells: c.cells });

/**
 * The frames (as the model may see them) → verdicts. Journal: the composites' layout, the job type,
 * each composite's analysis as it comes (a resumed job asks only the composites not judged), then
 * `judged`.
 */
export async function judge(ctx: StepContext, frames: () => Promise<SampledFrame[]>): Promise<Judged> {
  const { analyzer, pricing, journal } = ctx;
  const params = ctx.job.params!;
  let composites: Composite[] | undefined;
  const built = async (): Promise<Composite[]> => {
    composites ??= await buildComposites(await frames(), { targetComposites: params.targetComposites, framesPerComposite: params.framesPerComposite });
    return composites;
  };
  if (!journal.doc.judged) {
    const made = await built();
    await ctx.step(
      [ctx.entry('composites_created', 'composites_created', { count: made.length, frames_per_composite: params.framesPerComposite })],
      (doc) => (doc.layout = JSON.parse(JSON.stringify(made.map(layoutOf))) as CompositeLayout[]),
    );
    await ctx.checkpoint();
  }
  const layout = journal.doc.layout!;

  const price = pricing.priceFor(analyzer.modelName);
  await ctx.step([
    ctx.entry('model_pricing', 'model_pricing', { model: analyzer.modelName, input_per_1m: price.inputPer1m, output_per_1m: price.outputPer1m, currency: price.currency, known_price: price.known }),
  ]);
  const totals = spender(ctx, price);
  const { spend } = totals;
  const { jobType, jobTypeSource, jobTypeConfidence } = await decideJobType(ctx, built, spend);
  const findings = new Findings(findTask(jobType)?.required_groups ?? []);
  await ctx.checkpoint();

  // Issue 39: the built-in analyzer costs nothing, so it judges every composite for every code;
  // dedupe spares a paid model only what it would be asked again about workers already judged.
  const plan = new AskPlan(params.dedupeByEquipment && analyzer.thirdParty === true);
  // The built-in analyzer asks every composite the same codes, whatever the others showed: the next
  // composite is judged while this one's verdicts are recorded (both threads of the detector pool
  // stay busy). A paid model is asked one composite after the other: with dedupe what it is asked
  // depends on the ones before, and a job that fails stops paying at once.
  const ahead = analyzer.thirdParty !== true;
  const asked = new Map<number, Promise<CompositeAnalysis>>();
  const ask = (index: number, codes: string[]): Promise<CompositeAnalysis> => {
    let analysis = asked.get(index);
    if (!analysis) {
      analysis = built().then((all) => analyzer.analyzeComposite(all[index]!, { equipment: equipmentOptions(codes, 'en') }, ctx.signal));
      analysis.catch(() => undefined); // awaited in its turn; a failure ahead of it is not unhandled
      asked.set(index, analysis);
    }
    return analysis;
  };
  for (const [at, composite] of layout.entries()) {
    const codes = plan.codesFor(findings, composite);
    const done = journal.doc.analyses.find((a) => a.index === composite.index);
    if (done) {
      // Judged before a restart: its findings and cost count, the model is not asked again.
      findings.add(composite.index, done.analysis, composite.cells);
      spend(done.analysis.usage, `composite_${composite.index}`);
    } else if (codes.length > 0) {
      const analysis = await (async () => {
        const own = ask(composite.index, codes);
        const next = layout[at + 1];
        if (ahead && next && !journal.doc.analyses.some((a) => a.index === next.index)) void ask(next.index, codes);
        return own;
      })();
      const violated = findings.add(composite.index, analysis, composite.cells);
      const saved = JSON.parse(JSON.stringify(analysis)) as CompositeAnalysis;
      await ctx.step(
        [
          spend(analysis.usage, `composite_${composite.index}`),
          ctx.entry(`composite_analyzed:${composite.index}`, 'composite_analyzed', {
            index: composite.index,
            asked: codes,
            seen: analysis.seen.map((s) => s.code),
            missing: analysis.missing,
            not_checked: analysis.notChecked,
            persons: analysis.persons ?? null,
            violated,
          }),
        ],
        (doc) => doc.analyses.push({ index: composite.index, analysis: saved }),
      );
    }
    await ctx.checkpoint();
  }
  const skipped = findings.notAsked.filter((n) => findings.codesToAsk(false).every((c) => n.codes.includes(c)));
  const entries = skipped.length > 0 ? [ctx.entry('early_stop_triggered', 'early_stop_triggered', { skipped: skipped.length, composites: skipped.map((n) => n.composite_index) })] : [];
  if (!journal.doc.judged || entries.length > 0) await ctx.step(entries, (doc) => (doc.judged = true));
  return { jobType, jobTypeSource, jobTypeConfidence, findings, usage: totals.usage, cost: totals.cost, currency: price.currency, people: peopleJudged(journal.doc.analyses, layout) };
}

/** A job's model usage and cost so far; `spend` adds a model call to them and returns its usage report. */
interface Spender {
  usage: TokenUsage;
  cost: number;
  spend(u: TokenUsage, stepName: string): JournalEntry;
}

function spender(ctx: StepContext, price: ReturnType<StepContext['pricing']['priceFor']>): Spender {
  const totals: Spender = {
    usage: { promptTokens: 0, completionTokens: 0 },
    cost: 0,
    spend(u, stepName) {
      totals.usage.promptTokens += u.promptTokens;
      totals.usage.completionTokens += u.completionTokens;
      const c = estimateCost(u, price);
      totals.cost = Math.round((totals.cost + c) * 1e6) / 1e6;
      return ctx.entry(`llm_usage:${stepName}`, 'llm_usage', { step: stepName, prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, estimated_cost: c, currency: price.currency });
    },
  };
  return totals;
}

/**
 * The job's type: the one its options name (`manual`), or, for `auto`, the analyzer's classification
 * of the first two composites (`model`, or `fallback` when it cannot classify). Journal: the
 * classification and its cost, once (a resumed job takes it from the journal).
 */
async function decideJobType(
  ctx: StepContext,
  built: () => Promise<Composite[]>,
  spend: Spender['spend'],
): Promise<Pick<Judged, 'jobType' | 'jobTypeSource' | 'jobTypeConfidence'>> {
  const { analyzer, journal } = ctx;
  const classified = journal.doc.classification;
  if (classified) {
    spend(classified.usage, 'classify');
    const jobTypeConfidence = classified.confidence ?? null;
    return { jobType: classified.jobType, jobTypeConfidence, jobTypeSource: jobTypeConfidence === 0 ? 'fallback' : 'model' };
  }
  const jobType = ctx.job.params!.jobType;
  if (jobType !== 'auto') {
    await ctx.step([ctx.entry('job_classified', 'job_classified', { job_type: jobType, method: 'manual' })]);
    return { jobType, jobTypeSource: 'manual', jobTypeConfidence: null };
  }
  const classification = await analyzer.classifyJob((await built()).slice(0, 2), taskOptions('en'), ctx.signal);
  const jobTypeConfidence = classification.confidence ?? null;
  // An analyzer that cannot classify answers its fallback task with confidence 0.
  const jobTypeSource: JobTypeSource = classification.confidence === 0 ? 'fallback' : 'model';
  await ctx.step(
    [spend(classification.usage, 'classify'), ctx.entry('job_classified', 'job_classified', { job_type: classification.slug, method: jobTypeSource, confidence: jobTypeConfidence })],
    (doc) => (doc.classification = { jobType: classification.slug, usage: classification.usage, confidence: jobTypeConfidence }),
  );
  return { jobType: classification.slug, jobTypeSource, jobTypeConfidence };
}

/**
 * The workers each judged frame shows (see {@link Judged.people}): the offline analyzer's persons
 * and heads (in pixels of the frame's cell), or a model's workers' boxes; none for a composite whose
 * analysis does not say where its workers are.
 */
export function peopleJudged(analyses: ReadonlyArray<{ index: number; analysis: CompositeAnalysis }>, layout: readonly CompositeLayout[]): Map<number, FramePeople> {
  const people = new Map<number, FramePeople>();
  for (const { index, analysis } of analyses) {
    const cells = layout.find((l) => l.index === index)?.cells ?? [];
    const { findings: offline, frameFaces } = analysis as Partial<OfflineCompositeAnalysis>;
    if (!offline && !analysis.workers) continue;
    for (const cell of cells) people.set(cell.frameIndex, { persons: [], heads: [] });
    const rel = ([x, y, w, h]: readonly number[], cell: (typeof cells)[number]): RelBox => ({ x: x! / cell.width, y: y! / cell.height, w: w! / cell.width, h: h! / cell.height });
    for (const { frameIndex, faces } of frameFaces ?? []) {
      const cell = cells.find((c) => c.frameIndex === frameIndex);
      const here = people.get(frameIndex);
      if (cell && here) here.faces = faces.map((f) => ({ box: rel(f.box, cell), score: f.score }));
    }
    if (offline) {
      for (const f of offline) {
        const cell = cells.find((c) => c.frameIndex === f.frameIndex);
        const here = people.get(f.frameIndex);
        if (!cell || !here) continue;
        here.persons.push(rel(f.box, cell));
        if (f.head) here.heads.push(rel(f.head, cell));
      }
    } else {
      for (const w of analysis.workers ?? []) people.get(w.frameIndex)?.persons.push(w.box);
    }
  }
  return people;
}

/** A frame's people (fractions) in pixels of an image `width` × `height` placed at `left`, `top`. */
export function peopleIn(p: FramePeople, width: number, height: number, left = 0, top = 0): People {
  const px = (b: RelBox): PixelBox => [left + b.x * width, top + b.y * height, b.w * width, b.h * height];
  return { persons: p.persons.map(px), heads: p.heads.map(px) };
}

// ---------------------------------------------------------------------------------------------
// cover

/** The output of cover: the frames with their faces covered (stored), and how many faces were. */
export interface Covered {
  frames: SampledFrame[];
  faces: number;
  /** Each frame's patches, in its pixels, by frame index (a crop cut from the frame covers them again at its own size). */
  patches: Map<number, PixelBox[]>;
}

/**
 * The sampled frames → the same frames with every face covered, each frame once; only then is
 * anything of them stored: the covered frames (and, for an organisation that keeps them for its
 * managers, the unblurred ones under their own prefix). Journal: `covered`.
 */
export async function cover(ctx: StepContext, sampled: Sampled, plain: () => Promise<SampledFrame[]>, people?: Map<number, FramePeople>): Promise<Covered> {
  const { objects, journal } = ctx;
  const jobId = ctx.job.jobId;
  const done = journal.doc.covered;
  if (done) {
    // Covered before a restart: read back from the object store.
    const frames = await Promise.all(sampled.frames.map(async (f) => ({ ...f, jpeg: await readObject(objects, frameKey(jobId, f.index)) })));
    return { frames, faces: done.faces, patches: new Map(Object.entries(done.patches ?? {}).map(([i, boxes]) => [Number(i), boxes])) };
  }
  const started = Date.now();
  const frames = await plain();
  // All at once: the detector pool spreads them over its threads. A judged frame: the faces of the
  // workers the judge found (their heads, the tops of their boxes) and the faces BlazeFace is sure
  // of; a frame not judged (cover before a third-party model, a composite a paid model was not
  // asked): every face found.
  // The judge's search of the whole frame stands for the cover's own (the same frame at BlazeFace's
  // input size); the zone tiles are searched here, and the stored JPEG whenever anything was covered.
  const blurs = await Promise.all(
    frames.map((f) => {
      const here = people?.get(f.index);
      if (!here) return ctx.blurFaces(f.jpeg, {});
      const faces = here.faces?.map(({ box, score }) => ({ box: [box.x * f.width, box.y * f.height, box.w * f.width, box.h * f.height] as PixelBox, score }));
      return ctx.blurFaces(f.jpeg, { people: peopleIn(here, f.width, f.height), ...(faces ? { faces } : {}) });
    }),
  );
  const covered = frames.map((f, i) => ({ ...f, jpeg: blurs[i]!.jpeg }));
  const faces = blurs.reduce((n, b) => n + b.regions.length, 0);
  const remaining = blurs.reduce((n, b) => n + b.remaining, 0);
  if (remaining > 0) ctx.log.warn({ job_id: jobId, remaining }, 'the face detector still finds faces on blurred frames');
  await ctx.checkpoint();
  if (ctx.keepUnblurred) {
    await ctx.markUnblurred();
    await Promise.all(frames.map((f) => objects.put(unblurredKey(jobId, frameKey(jobId, f.index)), f.jpeg, { contentType: 'image/jpeg' })));
  }
  await Promise.all(covered.map((f) => objects.put(frameKey(jobId, f.index), f.jpeg, { contentType: 'image/jpeg' })));
  const patches = new Map(frames.map((f, i) => [f.index, blurs[i]!.regions.map((r) => r.box)]));
  await ctx.step(
    [ctx.entry('frames_saved', 'frames_saved', { count: frames.length, face_regions_blurred: faces, elapsed_ms: Date.now() - started })],
    (doc) => (doc.covered = { faces, patches: Object.fromEntries(patches) }),
  );
  return { frames: covered, faces, patches };
}

type PixelBox = [number, number, number, number];

// ---------------------------------------------------------------------------------------------
// store evidence

/** The output of store evidence: what was stored. */
export interface Stored {
  composites: number;
  crops: number;
}

/**
 * Covered frames and verdicts → the evidence a report shows: the composites (made of the covered
 * frames, searched once more) and the crop of each violation's worker (searched for faces once
 * more: enlarged, a face too small to find in the frame may show). Journal: `stored`.
 */
export async function storeEvidence(
  ctx: StepContext,
  covered: Covered,
  judged: Judged,
  plain: () => Promise<SampledFrame[]>,
  fullSize: (indices: readonly number[]) => Promise<Map<number, SampledFrame>> = async () => new Map(),
): Promise<Stored> {
  const done = ctx.journal.doc.stored;
  if (done) return done;
  const { objects } = ctx;
  const jobId = ctx.job.jobId;
  const params = ctx.job.params!;
  const options = { targetComposites: params.targetComposites, framesPerComposite: params.framesPerComposite };
  const composites = await buildComposites(covered.frames, options);
  // Made of covered frames, a composite is searched once more at its own scale, where BlazeFace may
  // find what the frames' search did not: on the whole composite, the faces of its workers (the
  // frames' people placed in their cells) and those BlazeFace is sure of — or every face, tiles and
  // heads, when one of its frames was not judged.
  const work: Array<Promise<void>> = composites.map(async (c) => {
    const cells = c.cells.map((cell) => ({ cell, people: judged.people.get(cell.frameIndex) }));
    const people = cells.every((x) => x.people)
      ? cells.reduce<People>(
          (all, { cell, people: p }) => {
            const placed = peopleIn(p!, cell.width, cell.height, cell.x, cell.y);
            return { persons: [...all.persons, ...placed.persons], heads: [...all.heads, ...placed.heads] };
          },
          { persons: [], heads: [] },
        )
      : undefined;
    c.jpeg = (await ctx.blurFaces(c.jpeg, people ? { people, tiles: false, heads: false } : {})).jpeg;
    await objects.put(compositeKey(jobId, c.index), c.jpeg, { contentType: 'image/jpeg' });
  });
  const plainFrames = ctx.keepUnblurred ? await plain() : [];
  if (ctx.keepUnblurred) {
    for (const c of await buildComposites(plainFrames, options)) await objects.put(unblurredKey(jobId, compositeKey(jobId, c.index)), c.jpeg, { contentType: 'image/jpeg' });
  }
  const violations = judged.findings.violations;
  // The violations' frames at the video's own size: their crops are cut from those (issue 53).
  const large = await fullSize([...new Set(violations.map((v) => v.frame_index))]);
  // One worker in one frame missing two items is two violations with the same crop: it is made
  // (cut, searched, covered) once and stored under each violation's key.
  const crops = new Map<string, Promise<{ covered: Buffer; original?: Buffer } | undefined>>();
  const cropOf = (v: Violation) => {
    const key = `${v.frame_index}|${v.box.x}|${v.box.y}|${v.box.w}|${v.box.h}`;
    let crop = crops.get(key);
    if (!crop) crops.set(key, (crop = coverCrop(v)));
    return crop;
  };
  const coverCrop = async (v: Violation) => {
    ctx.signal.throwIfAborted();
    const frame = covered.frames.find((f) => f.index === v.frame_index);
    if (!frame) return undefined;
    const here = judged.people.get(frame.index);
    // At the video's own size, the frame's patches scaled to it go along: what covered a face in the
    // sampled frame covers it there, and the crop is searched again as before.
    const full = large.get(frame.index);
    const source = full ?? frame;
    const k = source.width / frame.width;
    const patches = (covered.patches.get(frame.index) ?? []).map((p) => p.map((c) => c * k) as PixelBox);
    const crop = await coverWorkerCrop(ctx.blurFaces, source, v.box, patches, here && peopleIn(here, source.width, source.height));
    const original = full ?? plainFrames.find((f) => f.index === v.frame_index);
    return { covered: crop.jpeg, original: ctx.keepUnblurred && original ? (await cropWorker(original.jpeg, v.box)).jpeg : undefined };
  };
  // The crops alongside the composites: the detector pool keeps both threads busy. Beside each crop,
  // the whole frame with the worker boxed (issue 53: a reviewer judges the worker in their scene).
  work.push(
    ...violations.map(async (v, n) => {
      const crop = await cropOf(v);
      if (!crop) return;
      await objects.put(`jobs/${jobId}/violations/${n}.jpg`, crop.covered, { contentType: 'image/jpeg' });
      if (crop.original) await objects.put(unblurredPrefix(jobId) + `violations/${n}.jpg`, crop.original, { contentType: 'image/jpeg' });
      const frame = covered.frames.find((f) => f.index === v.frame_index);
      if (frame) await objects.put(`jobs/${jobId}/violations/${n}-frame.jpg`, await boxedFrame(frame.jpeg, v.box), { contentType: 'image/jpeg' });
      const original = plainFrames.find((f) => f.index === v.frame_index);
      if (original) await objects.put(unblurredPrefix(jobId) + `violations/${n}-frame.jpg`, await boxedFrame(original.jpeg, v.box), { contentType: 'image/jpeg' });
    }),
  );
  await Promise.all(work);
  const stored = { composites: composites.length, crops: violations.length };
  await ctx.step([], (doc) => (doc.stored = stored));
  return stored;
}

/**
 * A violation's crop of a covered frame with its faces covered (store evidence; the cover measure
 * of `npm run eval -- --blur` runs it too): the worker's `box` cut out ({@link cropWorker}), shown as
 * a thumbnail (80 points on the PDF's page) — searched at that size too, the frame's `patches` (its
 * pixels) with it, covered again at the crop's size so that their tone can change as well — and,
 * enlarged, searched once more on the whole crop for the faces of the frame's workers (`people`, in
 * its pixels; a frame not judged: every face), none on the worker's own torso (issue 51,
 * `FaceBlurOptions.worker`): what BlazeFace finds on a vest in the enlarged crop is the vest.
 */
export async function coverWorkerCrop(
  blurFaces: FaceBlurFn,
  frame: { jpeg: Buffer; width: number; height: number },
  box: RelBox,
  patches: readonly PixelBox[],
  people?: People,
): Promise<FaceBlurResult & { cut: WorkerCrop }> {
  const cut = await cropWorker(frame.jpeg, box);
  const inCrop = ([x, y, w, h]: PixelBox): PixelBox => [(x - cut.left) * cut.scale, (y - cut.top) * cut.scale, w * cut.scale, h * cut.scale];
  const worker = inCrop([box.x * frame.width, box.y * frame.height, box.w * frame.width, box.h * frame.height]);
  const crop = await blurFaces(cut.jpeg, {
    thumbnail: true,
    patches: patches.map(inCrop),
    ...(people ? { people: { persons: people.persons.map(inCrop), heads: people.heads.map(inCrop) }, tiles: false, heads: false, worker } : {}),
  });
  return { ...crop, cut };
}

/**
 * The whole frame with the worker's `box` drawn round them (issue 53): the scene a reviewer judges
 * the crop in. Made from the covered frame (its faces covered), at the frame's own size.
 */
export async function boxedFrame(frame: Buffer, box: RelBox): Promise<Buffer> {
  const meta = await sharp(frame).metadata();
  const W = meta.width ?? 1;
  const H = meta.height ?? 1;
  const line = Math.max(3, Math.round(Math.max(W, H) / 240));
  const [x, y, w, h] = [box.x * W, box.y * H, box.w * W, box.h * H].map((v) => Math.round(v));
  const rect = (color: string, width: number) => `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="${color}" stroke-width="${width}"/>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${rect('#000000', line + 2)}${rect('#facc15', line)}</svg>`;
  return sharp(frame)
    .composite([{ input: Buffer.from(svg), top: 0, left: 0 }])
    .jpeg({ quality: 88 })
    .toBuffer();
}

/** Long side of a violation's evidence crop at least (smaller crops are scaled up). */
export const CROP_MIN_SIDE = 480;

/** A worker's crop, and where it lies in the frame: its top-left corner (frame pixels) and its scale. */
export interface WorkerCrop {
  jpeg: Buffer;
  left: number;
  top: number;
  scale: number;
}

/** The worker's box out of a frame, with a quarter of its size as margin, at least {@link CROP_MIN_SIDE} px on the long side. */
export async function cropWorker(frame: Buffer, box: RelBox): Promise<WorkerCrop> {
  const meta = await sharp(frame).metadata();
  const W = meta.width ?? 1;
  const H = meta.height ?? 1;
  const mx = box.w * 0.25;
  const my = box.h * 0.15;
  const left = Math.max(0, Math.floor((box.x - mx) * W));
  const top = Math.max(0, Math.floor((box.y - my) * H));
  const width = Math.max(1, Math.min(W - left, Math.ceil((box.w + 2 * mx) * W)));
  const height = Math.max(1, Math.min(H - top, Math.ceil((box.h + 2 * my) * H)));
  const long = Math.max(width, height);
  const scale = long < CROP_MIN_SIDE ? CROP_MIN_SIDE / long : 1;
  const jpeg = await sharp(frame)
    .extract({ left, top, width, height })
    .resize(Math.round(width * scale), Math.round(height * scale), { fit: 'fill' })
    .jpeg({ quality: 88 })
    .toBuffer();
  return { jpeg, left, top, scale };
}

// ---------------------------------------------------------------------------------------------
// report

/** Verdicts → the job's result, reported as `job_completed` (the end of the job: not journaled). */
export async function report(ctx: StepContext, judged: Judged): Promise<void> {
  const result = judged.findings.result({
    jobType: judged.jobType,
    jobTypeSource: judged.jobTypeSource,
    jobTypeConfidence: judged.jobTypeConfidence,
    modelUsed: ctx.analyzer.modelName,
    usage: judged.usage,
    estimatedCost: judged.cost,
    currency: judged.currency,
  });
  await ctx.publish([ctx.entry('job_completed', 'job_completed', { result })]);
}

// ---------------------------------------------------------------------------------------------

/** The job's life, step after step (see the top of this file). */
export async function runPipeline(ctx: StepContext): Promise<void> {
  const at = async (name: StepName) => {
    await ctx.checkpoint();
    await ctx.onStep?.(name);
  };
  await at('sample');
  const sampled = await sample(ctx);
  const plain = framePixels(ctx, sampled);
  let covered: Covered | undefined;
  if (ctx.modelSeesCovered) {
    await at('cover');
    covered = await cover(ctx, sampled, plain);
  }
  await at('judge');
  const shown = covered;
  const judged = await judge(ctx, shown ? () => Promise.resolve(shown.frames) : plain);
  if (!covered) {
    await at('cover');
    covered = await cover(ctx, sampled, plain, judged.people);
  }
  await at('store');
  await storeEvidence(ctx, covered, judged, plain, fullSizeFrames(ctx, sampled));
  await at('report');
  await report(ctx, judged);
}
