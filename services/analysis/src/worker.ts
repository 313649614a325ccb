import { createHash, randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { create, toBinary, type JsonObject } from '@bufbuild/protobuf';
import { JobProgressSchema, type JobQueued } from '@baret/proto';
import {
  backoffMs,
  briefError,
  DEFAULT_EVIDENCE_PRIVACY,
  isDomainError,
  isUnavailable,
  pause,
  PROGRESS_TOPIC,
  type Collection,
  type DocumentStore,
  type EvidencePrivacy,
  type MessageBus,
  type ObjectStore,
} from '@baret/platform';
import type { Logger } from 'pino';
import sharp from 'sharp';
import { equipmentOptions, findTask, taskOptions } from './catalog/index.js';
import { buildComposites } from './engine/composites.js';
import type { FaceBlurFn } from './engine/faceBlur.js';
import { FrameExtractionError, samplePersonFocus, sampleUniform, type DetectFn } from './engine/frames.js';
import { VisionModelError } from './engine/openaiAnalyzer.js';
import { estimateCost, type ModelPricing } from './engine/pricing.js';
import { probeVideo } from './engine/probe.js';
import type { Composite, CompositeAnalysis, CompositeCell, RelBox, SampledFrame, TokenUsage, VisionAnalyzer } from './engine/types.js';
import { AskPlan, Findings, type JobTypeSource, type Violation } from './result.js';
import { throttleProgress } from './samplingProgress.js';

/** How often a job that keeps killing its worker is tried before it ends in error. */
export const MAX_ATTEMPTS = 2;

/** A worker on a job says it is alive this often; another worker takes a job over only once it stopped for ALIVE_FOR_MS. */
const ALIVE_EVERY_MS = 3000;
const ALIVE_FOR_MS = 15_000;

/**
 * An engine (bus, document store, object store) that is down, as opposed to a failure of the
 * analysis itself: the job waits for it, however long, and it never counts as an attempt. The
 * vision model's and the video's own failures are the analysis's.
 */
const isOutage = (err: unknown): boolean =>
  !(err instanceof VisionModelError) && !(err instanceof UserFacingError) && !(err instanceof FrameExtractionError) && !isDomainError(err) && isUnavailable(err);

export interface WorkerDeps {
  objects: ObjectStore;
  bus: MessageBus;
  documents: DocumentStore;
  analyzer: VisionAnalyzer;
  pricing: ModelPricing;
  detect: DetectFn;
  /** Blurs the faces of an image before it is stored (issue 30): every frame, composite and crop goes through it. */
  blurFaces: FaceBlurFn;
  log: Logger;
  clock: () => Date;
  /** How often a running job looks for a cancel request, in ms. */
  cancelPollMs?: number;
  /** Folder for the job's copy of its video (the scratch folder of the data dir); default the system's temp folder. */
  scratchDir?: string;
  /** How often a worker on a job says it is alive, and after how long without it another takes over (tests shorten them). */
  alive?: { everyMs: number; forMs: number };
}

interface AttemptDoc extends Record<string, unknown> {
  attempts: number;
  finished: boolean;
  /** The worker process on the job now, and when it last said so. */
  owner?: string;
  alive_at?: number;
}

export interface CancelDoc extends Record<string, unknown> {
  job_id: string;
  requested_by: string;
}

export const CANCELS = 'analysis_cancels';
/** The evidence privacy settings of each organisation, followed from `org-events` (service.ts). */
export const ORG_PRIVACY = 'analysis_org_privacy';
/** The jobs that have an unblurred copy of their evidence, by organisation (deleted when its managers may no longer see them). */
export const UNBLURRED = 'analysis_unblurred';

export interface OrgPrivacyDoc extends EvidencePrivacy, Record<string, unknown> {
  org_id: string;
}

export interface UnblurredDoc extends Record<string, unknown> {
  job_id: string;
  org_id: string;
}

/** Where a job's unblurred evidence lives (only when its organisation lets managers see it): under the job's own prefix, so deleting a job deletes it. */
export const unblurredPrefix = (jobId: string): string => `jobs/${jobId}/unblurred/`;
const ATTEMPTS = 'analysis_attempts';
/** The journal of each running job (see `JournalDoc`). */
export const JOURNALS = 'analysis_journals';

/** One report of a step, as published: `key` names the step and makes its event id. */
interface JournalEntry {
  key: string;
  type: string;
  data: Record<string, unknown>;
  at: string;
}

/**
 * What a job's analysis has done so far, written before each step is reported, so that a run
 * interrupted by a crash resumes where it stopped: steps already reported are not redone (their
 * reports are published again under the same event ids, which the job service ignores), and
 * composites already analysed are not asked again (their findings and token usage come from here).
 */
export interface JournalDoc extends Record<string, unknown> {
  reports: JournalEntry[];
  /** The composites, once built and stored (`jobs/<id>/composites/<index>.jpg`). */
  composites?: { index: number; width: number; height: number; cells: CompositeCell[] }[];
  classification?: { jobType: string; usage: TokenUsage; confidence?: number | null };
  analyses: { index: number; analysis: CompositeAnalysis }[];
}

/**
 * The event id of one step of one job: the same on every run, so that a step reported again
 * after a restart is recognised by the job service as already recorded.
 */
export function stepEventId(jobId: string, key: string): string {
  const h = createHash('sha256').update(`${jobId}\u0000${key}`).digest('hex');
  const variant = ((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

class Journal {
  private constructor(
    private readonly collection: Collection<JournalDoc>,
    private readonly jobId: string,
    readonly doc: JournalDoc,
  ) {}

  static async open(collection: Collection<JournalDoc>, jobId: string): Promise<Journal> {
    return new Journal(collection, jobId, (await collection.get(jobId)) ?? { reports: [], analyses: [] });
  }

  has(key: string): boolean {
    return this.doc.reports.some((r) => r.key === key);
  }

  /** Stores the entries not recorded yet (and `change`) in one write; returns those to publish. */
  async record(entries: JournalEntry[], change?: (doc: JournalDoc) => void): Promise<JournalEntry[]> {
    const fresh = entries.filter((e) => !this.has(e.key));
    if (fresh.length === 0 && !change) return [];
    change?.(this.doc);
    this.doc.reports.push(...fresh);
    await this.collection.put(this.jobId, this.doc);
    return fresh;
  }
}

class Cancelled extends Error {}

/**
 * The analysis of one job: probe → frames → composites → job type → composite after composite
 * with the vision model → result. Every step is reported as a progress event; a cancel request
 * is honoured between steps (and interrupts ffmpeg or a model call under way); the raw video is
 * deleted at the end, whatever the outcome.
 */
export class AnalysisWorker {
  private readonly attempts: Collection<AttemptDoc>;
  private readonly cancels: Collection<CancelDoc>;
  private readonly journals: Collection<JournalDoc>;
  private readonly privacy: Collection<OrgPrivacyDoc>;
  private readonly unblurred: Collection<UnblurredDoc>;

  constructor(private readonly deps: WorkerDeps) {
    this.privacy = deps.documents.collection<OrgPrivacyDoc>(ORG_PRIVACY);
    this.unblurred = deps.documents.collection<UnblurredDoc>(UNBLURRED);
    this.attempts = deps.documents.collection<AttemptDoc>(ATTEMPTS);
    this.cancels = deps.documents.collection<CancelDoc>(CANCELS);
    this.journals = deps.documents.collection<JournalDoc>(JOURNALS);
  }

  private entry(key: string, type: string, data: Record<string, unknown> = {}): JournalEntry {
    return { key, type, data: JSON.parse(JSON.stringify(data)) as Record<string, unknown>, at: this.deps.clock().toISOString() };
  }

  private async publish(jobId: string, entries: JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.deps.bus.publish(
      PROGRESS_TOPIC,
      entries.map((e) => ({
        key: jobId,
        value: toBinary(
          JobProgressSchema,
          create(JobProgressSchema, { jobId, eventId: stepEventId(jobId, e.key), type: e.type, data: e.data as JsonObject, at: e.at }),
        ),
      })),
    );
  }

  /** Reports a step that needs no journal (the end of a job). */
  private async report(jobId: string, type: string, data: Record<string, unknown> = {}): Promise<void> {
    await this.publish(jobId, [this.entry(type, type, data)]);
  }

  /** This worker process, as the owner of the jobs it runs. */
  private readonly instance = randomUUID();
  /** The jobs this process runs now: a message delivered again meanwhile waits for the run, it is no new attempt. */
  private readonly active = new Map<string, Promise<void>>();
  private readonly beats = new Set<NodeJS.Timeout>();

  /** Stops saying it is alive for its jobs (the process is going away; another worker may take them over). */
  close(): void {
    for (const t of this.beats) clearInterval(t);
    this.beats.clear();
  }

  async handle(job: JobQueued): Promise<void> {
    const running = this.active.get(job.jobId);
    if (running) return running;
    const handled = this.handleOnce(job).finally(() => this.active.delete(job.jobId));
    this.active.set(job.jobId, handled);
    return handled;
  }

  /**
   * Waits while another live worker runs the job (its message came here after a rebalance, e.g.
   * once a broker outage ended): true when that worker finished it, false when it stopped saying
   * it is alive (it died: this worker takes over, as a new attempt).
   */
  private async otherWorkerFinishes(jobId: string): Promise<boolean> {
    for (;;) {
      const doc = await this.attempts.get(jobId);
      if (!doc || doc.finished) return doc?.finished ?? false;
      if (!doc.owner || doc.owner === this.instance || Date.now() - (doc.alive_at ?? 0) > (this.deps.alive?.forMs ?? ALIVE_FOR_MS)) return false;
      await pause(this.deps.alive?.everyMs ?? ALIVE_EVERY_MS);
    }
  }

  private async handleOnce(job: JobQueued): Promise<void> {
    const { log } = this.deps;
    const jobId = job.jobId;
    if (await this.otherWorkerFinishes(jobId)) return;
    const previous = await this.attempts.get(jobId);
    if (previous?.finished) return; // a redelivery of a job already reported as ended
    const attempt = (previous?.attempts ?? 0) + 1;
    const mark = (finished: boolean) => this.attempts.put(jobId, { attempts: attempt, finished, owner: this.instance, alive_at: Date.now() });
    await mark(false);
    // Says it is alive while it works (best effort: the store may be down for a while).
    const alive = setInterval(() => void mark(false).catch(() => undefined), this.deps.alive?.everyMs ?? ALIVE_EVERY_MS);
    this.beats.add(alive);

    let ended = false;
    const finish = async (type: 'job_completed' | 'job_failed' | 'job_cancelled', data: Record<string, unknown>) => {
      await this.report(jobId, type, data);
      ended = true;
      clearInterval(alive);
      await mark(true);
      await this.journals.delete(jobId);
    };

    try {
      if (await this.cancels.get(jobId)) {
        await finish('job_cancelled', { reason: 'cancelled_by_admin' });
        return;
      }
      if (attempt > MAX_ATTEMPTS) {
        await finish('job_failed', {
          error: 'The analysis was interrupted several times while processing this video. Please try again or contact support.',
          refund: true,
        });
        return;
      }
      // An engine outage pauses the job, then it resumes from its journal, in this same attempt.
      for (let outages = 0; ; outages++) {
        try {
          await this.run(job, attempt);
          break;
        } catch (err) {
          if (!isOutage(err)) throw err;
          const wait = backoffMs(outages, 500, 10_000);
          log.warn({ error: briefError(err), job_id: jobId, retry_in_ms: wait }, 'job paused: a dependency is unavailable');
          await pause(wait);
        }
      }
      ended = true;
      clearInterval(alive);
      await mark(true);
      await this.journals.delete(jobId);
    } catch (err) {
      if (err instanceof Cancelled) {
        await finish('job_cancelled', { reason: 'cancelled_by_admin' });
      } else if (isOutage(err)) {
        // Not the analysis's failure: the message is handled again once the engine is back.
        throw err;
      } else {
        log.error({ err, job_id: jobId }, 'analysis failed');
        await finish('job_failed', { error: userMessage(err), refund: true });
      }
    } finally {
      clearInterval(alive);
      this.beats.delete(alive);
      // The raw video goes once the job ended; a job that waits for an engine still needs it.
      if (ended) await this.deps.objects.delete(job.videoKey).catch((err: unknown) => log.warn({ error: briefError(err), job_id: jobId }, 'could not delete the raw video'));
    }
  }

  /** The job's evidence privacy: its organisation's settings, the defaults for a job without one. */
  private async privacyOf(orgId: string | undefined): Promise<EvidencePrivacy> {
    const doc = orgId ? await this.privacy.get(orgId) : null;
    return {
      blur_third_party: doc?.blur_third_party ?? DEFAULT_EVIDENCE_PRIVACY.blur_third_party,
      managers_see_unblurred: doc?.managers_see_unblurred ?? DEFAULT_EVIDENCE_PRIVACY.managers_see_unblurred,
    };
  }

  private async run(job: JobQueued, attempt: number): Promise<void> {
    const { analyzer, pricing } = this.deps;
    const jobId = job.jobId;
    const params = job.params!;
    const controller = new AbortController();
    const { signal } = controller;
    setMaxListeners(100, signal); // every ffmpeg process and model call of the job listens to it
    const poll = setInterval(() => {
      // The store may be down for a moment: the next poll asks again (an unhandled rejection here
      // once ended the worker with a raw MongoNetworkError).
      void this.cancels.get(jobId).then((c) => c && controller.abort(new Cancelled()), () => undefined);
    }, this.deps.cancelPollMs ?? 500);
    const checkpoint = async () => {
      if (signal.aborted || (await this.cancels.get(jobId))) throw new Cancelled();
    };
    const journal = await Journal.open(this.journals, jobId);
    /** Journals the steps, then reports those not reported before. */
    const step = async (entries: JournalEntry[], change?: (doc: JournalDoc) => void) => this.publish(jobId, await journal.record(entries, change));
    let work: string | undefined;
    try {
      // A restart first reports again what the journal holds (a crash may have come between
      // journaling a step and reporting it; the job service ignores what it already has).
      await this.publish(jobId, journal.doc.reports);
      await step([this.entry('job_started', 'job_started', { attempt })]);
      if (attempt > 1) {
        await step([
          this.entry(`job_resumed:${attempt}`, 'job_resumed', {
            attempt,
            after: journal.doc.reports.at(-1)?.type ?? 'job_started',
            composites_analyzed: journal.doc.analyses.length,
          }),
        ]);
      }

      const privacy = await this.privacyOf(job.orgId);
      // Unblurred copies are kept only for an organisation's managers who may see them (issue 30).
      const keepUnblurred = privacy.managers_see_unblurred && !!job.orgId;
      // What the model is shown: the in-process analyzer judges the frames before they are blurred
      // (shown blurred faces, it loses up to 50 points of recall: ADR 0024) — they never leave the
      // process; a third-party model gets the stored, blurred composites unless the organisation allows faces.
      const unblurredForModel = analyzer.thirdParty !== true || !privacy.blur_third_party;
      // A resumed job reuses its stored composites only where the model sees them blurred anyway;
      // otherwise it samples again from the video (kept until the job ends), the same frames.
      let composites = journal.doc.composites && !unblurredForModel ? await this.storedComposites(jobId, journal.doc.composites) : undefined;
      let forModel = composites;
      if (!composites) {
        work = await mkdtemp(join(this.deps.scratchDir ?? tmpdir(), 'baret-job-'));
        const made = await this.makeComposites(job, attempt, work, signal, checkpoint, step, { keepUnblurred, unblurredForModel });
        composites = made.stored;
        forModel = made.forModel;
      }
      forModel ??= composites;
      await checkpoint();

      const price = pricing.priceFor(analyzer.modelName);
      await step([
        this.entry('model_pricing', 'model_pricing', {
          model: analyzer.modelName,
          input_per_1m: price.inputPer1m,
          output_per_1m: price.outputPer1m,
          currency: price.currency,
          known_price: price.known,
        }),
      ]);
      const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
      let cost = 0;
      /** Adds a model call to the job's totals; returns its usage report. */
      const spend = (u: TokenUsage, stepName: string): JournalEntry => {
        usage.promptTokens += u.promptTokens;
        usage.completionTokens += u.completionTokens;
        const c = estimateCost(u, price);
        cost = Math.round((cost + c) * 1e6) / 1e6;
        return this.entry(`llm_usage:${stepName}`, 'llm_usage', {
          step: stepName,
          prompt_tokens: u.promptTokens,
          completion_tokens: u.completionTokens,
          estimated_cost: c,
          currency: price.currency,
        });
      };

      let jobType = params.jobType;
      let jobTypeSource: JobTypeSource = 'manual';
      let jobTypeConfidence: number | null = null;
      const classified = journal.doc.classification;
      if (classified) {
        jobType = classified.jobType;
        jobTypeConfidence = classified.confidence ?? null;
        jobTypeSource = jobTypeConfidence === 0 ? 'fallback' : 'model';
        spend(classified.usage, 'classify');
      } else if (jobType === 'auto') {
        const classification = await analyzer.classifyJob(forModel.slice(0, 2), taskOptions('en'), signal);
        jobType = classification.slug;
        jobTypeConfidence = classification.confidence ?? null;
        // An analyzer that cannot classify answers its fallback task with confidence 0.
        jobTypeSource = classification.confidence === 0 ? 'fallback' : 'model';
        await step(
          [
            spend(classification.usage, 'classify'),
            this.entry('job_classified', 'job_classified', {
              job_type: jobType,
              method: jobTypeSource,
              confidence: jobTypeConfidence,
            }),
          ],
          (doc) => (doc.classification = { jobType: classification.slug, usage: classification.usage, confidence: jobTypeConfidence }),
        );
      } else {
        await step([this.entry('job_classified', 'job_classified', { job_type: jobType, method: 'manual' })]);
      }
      const task = findTask(jobType);
      const findings = new Findings(task?.required_groups ?? []);
      await checkpoint();

      // Issue 39: the built-in analyzer costs nothing, so it judges every composite for every code;
      // dedupe spares a paid model only what it would be asked again about workers already judged.
      const plan = new AskPlan(params.dedupeByEquipment && analyzer.thirdParty === true);
      for (const [at, composite] of composites.entries()) {
        const codes = plan.codesFor(findings, composite);
        const done = journal.doc.analyses.find((a) => a.index === composite.index);
        if (done) {
          // Analysed before a restart: its findings and cost count, the model is not asked again.
          findings.add(composite.index, done.analysis, composite.cells);
          spend(done.analysis.usage, `composite_${composite.index}`);
        } else if (codes.length > 0) {
          const analysis = await analyzer.analyzeComposite(forModel[at] ?? composite, { equipment: equipmentOptions(codes, 'en') }, signal);
          const violated = findings.add(composite.index, analysis, composite.cells);
          const saved = JSON.parse(JSON.stringify(analysis)) as CompositeAnalysis;
          await step(
            [
              spend(analysis.usage, `composite_${composite.index}`),
              this.entry(`composite_analyzed:${composite.index}`, 'composite_analyzed', {
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
        await checkpoint();
      }
      const skipped = findings.notAsked.filter((n) => findings.codesToAsk(false).every((c) => n.codes.includes(c)));
      if (skipped.length > 0) {
        await step([this.entry('early_stop_triggered', 'early_stop_triggered', { skipped: skipped.length, composites: skipped.map((n) => n.composite_index) })]);
      }

      await this.saveViolationCrops(jobId, findings.violations, signal, keepUnblurred);
      const result = findings.result({
        jobType,
        jobTypeSource,
        jobTypeConfidence,
        modelUsed: analyzer.modelName,
        usage,
        estimatedCost: cost,
        currency: price.currency,
      });
      await this.report(jobId, 'job_completed', { result });
    } catch (err) {
      if (signal.aborted || err instanceof Cancelled) throw new Cancelled();
      throw err;
    } finally {
      clearInterval(poll);
      if (work) await rm(work, { recursive: true, force: true });
    }
  }

  /** Video → frames → composites, each step journaled and reported. */
  private async makeComposites(
    job: JobQueued,
    attempt: number,
    work: string,
    signal: AbortSignal,
    checkpoint: () => Promise<void>,
    step: (entries: JournalEntry[], change?: (doc: JournalDoc) => void) => Promise<void>,
    privacy: { keepUnblurred: boolean; unblurredForModel: boolean },
  ): Promise<{ stored: Composite[]; forModel: Composite[] }> {
    const { objects, detect } = this.deps;
    const jobId = job.jobId;
    const params = job.params!;
    const videoPath = join(work, 'video');
    const head = await objects.head(job.videoKey);
    if (!head) throw new UserFacingError('The uploaded video is no longer available. Please upload it again.');
    await pipeline(await objects.get(job.videoKey), createWriteStream(videoPath));
    const info = await probeVideo(videoPath, signal);
    await step([
      this.entry('video_opened', 'video_opened', {
        duration_sec: round(info.durationSec, 3),
        width: info.width,
        height: info.height,
        fps: round(info.fps, 3),
        codec: info.codec,
      }),
    ]);
    await checkpoint();

    const count = params.targetComposites * params.framesPerComposite;
    const started = Date.now();
    // Progress while sampling (`frames_sampling`, throttled): reported in order, not journaled (a
    // resumed job samples again and reports its own, under this attempt's keys).
    let reported = 0;
    let progress = Promise.resolve();
    const onProgress = throttleProgress(
      (done, total) => {
        const entry = this.entry(`frames_sampling:${attempt}:${++reported}`, 'frames_sampling', { done, total });
        progress = progress
          .then(() => this.publish(jobId, [entry]))
          .catch((err: unknown) => this.deps.log.warn({ err, job_id: jobId }, 'could not report sampling progress'));
      },
      { now: () => this.deps.clock().getTime() },
    );
    let frames: SampledFrame[];
    try {
      frames =
        params.sampling === 'person'
          ? await samplePersonFocus(videoPath, info, count, detect, { signal, onProgress })
          : await sampleUniform(videoPath, info, count, { signal, onProgress });
    } finally {
      await progress; // every progress report is out before the next step's
    }
    if (frames.length === 0) throw new UserFacingError('No frames could be read from this video.');
    await step([
      this.entry('frames_sampled', 'frames_sampled', {
        count: frames.length,
        sampling: params.sampling,
        times_sec: frames.map((f) => round(f.timeSec, 2)),
        elapsed_ms: Date.now() - started,
      }),
    ]);
    await checkpoint();

    // Faces blurred before anything is stored (issue 30); the unblurred frames stay in memory.
    const blurs = await Promise.all(frames.map((f) => this.deps.blurFaces(f.jpeg)));
    const blurred = frames.map((f, i) => ({ ...f, jpeg: blurs[i]!.jpeg }));
    const faces = blurs.reduce((n, b) => n + b.regions.length, 0);
    const remaining = blurs.reduce((n, b) => n + b.remaining, 0);
    if (remaining > 0) this.deps.log.warn({ job_id: jobId, remaining }, 'the face detector still finds faces on blurred frames');
    await checkpoint();
    if (privacy.keepUnblurred) {
      await this.unblurred.put(jobId, { job_id: jobId, org_id: job.orgId! });
      for (const f of frames) await objects.put(unblurredPrefix(jobId) + frameKey(jobId, f.index).slice(`jobs/${jobId}/`.length), f.jpeg, { contentType: 'image/jpeg' });
    }
    for (const f of blurred) await objects.put(frameKey(jobId, f.index), f.jpeg, { contentType: 'image/jpeg' });
    await step([this.entry('frames_saved', 'frames_saved', { count: frames.length, face_regions_blurred: faces })]);
    await checkpoint();

    const options = { targetComposites: params.targetComposites, framesPerComposite: params.framesPerComposite };
    const composites = await buildComposites(blurred, options);
    // A composite is searched again: a face the frames' pass left (none measured) is blurred here.
    // All at once, like the frames: the detector pool spreads them over its threads.
    await Promise.all(composites.map(async (c) => (c.jpeg = (await this.deps.blurFaces(c.jpeg)).jpeg)));
    for (const c of composites) await objects.put(compositeKey(jobId, c.index), c.jpeg, { contentType: 'image/jpeg' });
    let forModel = composites;
    if (privacy.keepUnblurred || privacy.unblurredForModel) {
      const plain = await buildComposites(frames, options);
      if (privacy.keepUnblurred) {
        for (const c of plain) await objects.put(unblurredPrefix(jobId) + `composites/${c.index}.jpg`, c.jpeg, { contentType: 'image/jpeg' });
      }
      if (privacy.unblurredForModel) forModel = plain;
    }
    await step(
      [this.entry('composites_created', 'composites_created', { count: composites.length, frames_per_composite: params.framesPerComposite })],
      (doc) => (doc.composites = composites.map((c) => ({ index: c.index, width: c.width, height: c.height, cells: c.cells }))),
    );
    return { stored: composites, forModel };
  }

  /**
   * The evidence of each violation: the worker cropped out of the stored frame with a margin,
   * scaled so the long side is at least {@link CROP_MIN_SIDE} px (large enough to judge), stored as
   * `jobs/<id>/violations/<n>.jpg` (n: its place in the result's `violations`).
   */
  private async saveViolationCrops(jobId: string, violations: readonly Violation[], signal: AbortSignal, keepUnblurred: boolean): Promise<void> {
    const frames = new Map<string, Buffer>();
    const frame = async (key: string): Promise<Buffer> => {
      let jpeg = frames.get(key);
      if (!jpeg) {
        jpeg = await this.readObject(key);
        frames.set(key, jpeg);
      }
      return jpeg;
    };
    for (const [n, v] of violations.entries()) {
      signal.throwIfAborted();
      // Cut from the blurred frame, and searched again: the crop is enlarged, a face too small to find in the frame may show in it.
      const crop = await this.deps.blurFaces(await cropWorker(await frame(frameKey(jobId, v.frame_index)), v.box));
      await this.deps.objects.put(`jobs/${jobId}/violations/${n}.jpg`, crop.jpeg, { contentType: 'image/jpeg' });
      if (keepUnblurred) {
        const plainKey = unblurredPrefix(jobId) + frameKey(jobId, v.frame_index).slice(`jobs/${jobId}/`.length);
        const plain = await frame(plainKey).catch(() => null);
        if (plain) await this.deps.objects.put(unblurredPrefix(jobId) + `violations/${n}.jpg`, await cropWorker(plain, v.box), { contentType: 'image/jpeg' });
      }
    }
  }

  private async readObject(key: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.deps.objects.get(key)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** The composites of an interrupted run, read back from the object store (undefined if one is gone). */
  private async storedComposites(jobId: string, stored: NonNullable<JournalDoc['composites']>): Promise<Composite[] | undefined> {
    try {
      const out: Composite[] = [];
      for (const c of stored) {
        out.push({ ...c, jpeg: await this.readObject(compositeKey(jobId, c.index)) });
      }
      return out;
    } catch (err) {
      this.deps.log.warn({ err, job_id: jobId }, 'stored composites unreadable; building them again');
      return undefined;
    }
  }
}

const compositeKey = (jobId: string, index: number): string => `jobs/${jobId}/composites/${index}.jpg`;
const frameKey = (jobId: string, index: number): string => `jobs/${jobId}/frames/${String(index).padStart(3, '0')}.jpg`;

/** Long side of a violation's evidence crop at least (smaller crops are scaled up). */
export const CROP_MIN_SIDE = 480;

/** The worker's box out of a frame, with a quarter of its size as margin, at least {@link CROP_MIN_SIDE} px on the long side. */
export async function cropWorker(frame: Buffer, box: RelBox): Promise<Buffer> {
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
  return sharp(frame)
    .extract({ left, top, width, height })
    .resize(Math.round(width * scale), Math.round(height * scale), { fit: 'fill' })
    .jpeg({ quality: 88 })
    .toBuffer();
}

/** An error whose message is written for the user. */
export class UserFacingError extends Error {}

/** What a user reads when a job fails: a clear sentence, never internals. */
export function userMessage(err: unknown): string {
  if (err instanceof UserFacingError) return err.message;
  if (err instanceof VisionModelError) return err.message;
  if (isDomainError(err) && err.status < 500) return err.message;
  return 'The analysis failed on our side. Your quota unit was given back; please try again.';
}

const round = (n: number, digits: number): number => Math.round(n * 10 ** digits) / 10 ** digits;
