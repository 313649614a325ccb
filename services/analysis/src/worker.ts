import { randomUUID } from 'node:crypto';
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
} from '@baret/platform';
import { FrameExtractionError } from './engine/frames.js';
import { VisionModelError } from './engine/openaiAnalyzer.js';
import { Journal, JOURNALS, stepEventId, type JournalDoc, type JournalEntry } from './journal.js';
import { runPipeline, UserFacingError, type PipelineEngines, type StepContext, type StepName } from './pipeline.js';

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

export interface WorkerDeps extends PipelineEngines {
  bus: MessageBus;
  documents: DocumentStore;
  /** How often a running job looks for a cancel request, in ms. */
  cancelPollMs?: number;
  /** Folder for the job's copy of its video (the scratch folder of the data dir); default the system's temp folder. */
  scratchDir?: string;
  /** How often a worker on a job says it is alive, and after how long without it another takes over (tests shorten them). */
  alive?: { everyMs: number; forMs: number };
  /** Called as each step of the pipeline starts (tests stop a worker there). */
  onStep?: (name: StepName) => Promise<void>;
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

const ATTEMPTS = 'analysis_attempts';

class Cancelled extends Error {}

/** A running job's watch for a cancel request (`AnalysisWorker.watchCancels`). */
interface CancelWatch {
  signal: AbortSignal;
  checkpoint(): Promise<void>;
  stop(): void;
}

/** A job's copy of its video on local disk (`AnalysisWorker.videoCopy`). */
interface VideoCopy {
  video(): Promise<string>;
  remove(): Promise<void>;
}

/** What one attempt at a job has set up before its steps run. */
interface AttemptRun {
  cancel: CancelWatch;
  journal: Journal;
  step: StepContext['step'];
  copy: VideoCopy;
}

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

  /**
   * Watches for a cancel request while a job runs: a poll aborts `signal` as soon as it sees one,
   * which interrupts every ffmpeg process and model call under way; `checkpoint` asks the store
   * itself, between steps. `stop` ends the poll.
   */
  private watchCancels(jobId: string): CancelWatch {
    const controller = new AbortController();
    const { signal } = controller;
    setMaxListeners(100, signal); // every ffmpeg process and model call of the job listens to it
    const poll = setInterval(() => {
      // The store may be down for a moment: the next poll asks again (an unhandled rejection here
      // once ended the worker with a raw MongoNetworkError).
      void this.cancels.get(jobId).then((c) => c && controller.abort(new Cancelled()), () => undefined);
    }, this.deps.cancelPollMs ?? 500);
    return {
      signal,
      checkpoint: async () => {
        if (signal.aborted || (await this.cancels.get(jobId))) throw new Cancelled();
      },
      stop: () => clearInterval(poll),
    };
  }

  /**
   * The job's copy of its video, fetched into a scratch folder the first time a step needs it (a job
   * resumed after sampling may not need it at all); `remove` deletes the folder, whatever the outcome.
   */
  private videoCopy(job: JobQueued): VideoCopy {
    let work: string | undefined;
    let video: Promise<string> | undefined;
    const fetchVideo = async (): Promise<string> => {
      if (!(await this.deps.objects.head(job.videoKey))) throw new UserFacingError('The uploaded video is no longer available. Please upload it again.');
      work = await mkdtemp(join(this.deps.scratchDir ?? tmpdir(), 'baret-job-'));
      const path = join(work, 'video');
      await pipeline(await this.deps.objects.get(job.videoKey), createWriteStream(path));
      return path;
    };
    return {
      video: () => (video ??= fetchVideo()),
      remove: async () => {
        if (work) await rm(work, { recursive: true, force: true });
      },
    };
  }

  /**
   * Reports that an attempt starts. It first reports again what the journal holds (a crash may have
   * come between journaling a step and reporting it; the job service ignores what it already has);
   * a later attempt also says after which step it resumes.
   */
  private async reportStart(jobId: string, attempt: number, journal: Journal, step: StepContext['step']): Promise<void> {
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
  }

  /** What the pipeline's steps need of this worker for one attempt at a job, under its organisation's evidence privacy. */
  private async stepContext(job: JobQueued, attempt: number, run: AttemptRun): Promise<StepContext> {
    const jobId = job.jobId;
    const privacy = await this.privacyOf(job.orgId);
    return {
      job,
      attempt,
      signal: run.cancel.signal,
      objects: this.deps.objects,
      analyzer: this.deps.analyzer,
      pricing: this.deps.pricing,
      detect: this.deps.detect,
      blurFaces: this.deps.blurFaces,
      log: this.deps.log,
      clock: this.deps.clock,
      journal: run.journal,
      step: run.step,
      entry: (key, type, data) => this.entry(key, type, data),
      publish: (entries) => this.publish(jobId, entries),
      checkpoint: run.cancel.checkpoint,
      video: run.copy.video,
      // Unblurred copies are kept only for an organisation's managers who may see them (issue 30).
      keepUnblurred: privacy.managers_see_unblurred && !!job.orgId,
      markUnblurred: () => this.unblurred.put(jobId, { job_id: jobId, org_id: job.orgId! }),
      // The in-process analyzer judges the frames before they are covered (shown covered faces, it
      // loses up to 50 points of recall: ADR 0024) — they never leave the process; a third-party
      // model is shown covered frames unless the organisation allows faces.
      modelSeesCovered: this.deps.analyzer.thirdParty === true && privacy.blur_third_party,
      onStep: this.deps.onStep,
    };
  }

  /** One attempt at a job: its steps from where the journal left off; a cancel request, however it surfaced, ends it as `Cancelled`. */
  private async run(job: JobQueued, attempt: number): Promise<void> {
    const jobId = job.jobId;
    // The journal is read before the cancel poll starts: a store that is down here would otherwise
    // leave the poll running after the attempt gave up (and one more at each retry of the outage).
    const journal = await Journal.open(this.journals, jobId);
    /** Journals the steps, then reports those not reported before. */
    const step: StepContext['step'] = async (entries, change) => this.publish(jobId, await journal.record(entries, change));
    const cancel = this.watchCancels(jobId);
    const copy = this.videoCopy(job);
    try {
      await this.reportStart(jobId, attempt, journal, step);
      await runPipeline(await this.stepContext(job, attempt, { cancel, journal, step, copy }));
    } catch (err) {
      // An aborted ffmpeg process or model call throws its own error: the cancel request is what ended it.
      if (cancel.signal.aborted || err instanceof Cancelled) throw new Cancelled();
      throw err;
    } finally {
      cancel.stop();
      await copy.remove();
    }
  }
}

/** What a user reads when a job fails: a clear sentence, never internals. */
export function userMessage(err: unknown): string {
  if (err instanceof UserFacingError) return err.message;
  if (err instanceof VisionModelError) return err.message;
  if (isDomainError(err) && err.status < 500) return err.message;
  return 'The analysis failed on our side. Your quota unit was given back; please try again.';
}

