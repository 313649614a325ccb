import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { create, toBinary, type JsonObject } from '@bufbuild/protobuf';
import { JobProgressSchema, type JobQueued } from '@baret/proto';
import { isDomainError, PROGRESS_TOPIC, type Collection, type DocumentStore, type MessageBus, type ObjectStore } from '@baret/platform';
import type { Logger } from 'pino';
import { equipmentOptions, findTask, taskOptions } from './catalog/index.js';
import { buildComposites } from './engine/composites.js';
import { samplePersonFocus, sampleUniform, type DetectFn } from './engine/frames.js';
import { VisionModelError } from './engine/openaiAnalyzer.js';
import { estimateCost, type ModelPricing } from './engine/pricing.js';
import { probeVideo } from './engine/probe.js';
import type { SampledFrame, TokenUsage, VisionAnalyzer } from './engine/types.js';
import { Findings } from './result.js';

/** How often a job that keeps killing its worker is tried before it ends in error. */
export const MAX_ATTEMPTS = 2;

export interface WorkerDeps {
  objects: ObjectStore;
  bus: MessageBus;
  documents: DocumentStore;
  analyzer: VisionAnalyzer;
  pricing: ModelPricing;
  detect: DetectFn;
  log: Logger;
  clock: () => Date;
  /** How often a running job looks for a cancel request, in ms. */
  cancelPollMs?: number;
}

interface AttemptDoc extends Record<string, unknown> {
  attempts: number;
  finished: boolean;
}

export interface CancelDoc extends Record<string, unknown> {
  job_id: string;
  requested_by: string;
}

export const CANCELS = 'analysis_cancels';
const ATTEMPTS = 'analysis_attempts';

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

  constructor(private readonly deps: WorkerDeps) {
    this.attempts = deps.documents.collection<AttemptDoc>(ATTEMPTS);
    this.cancels = deps.documents.collection<CancelDoc>(CANCELS);
  }

  private async report(jobId: string, type: string, data: Record<string, unknown> = {}): Promise<void> {
    const message = create(JobProgressSchema, {
      jobId,
      eventId: randomUUID(),
      type,
      data: JSON.parse(JSON.stringify(data)) as JsonObject,
      at: this.deps.clock().toISOString(),
    });
    await this.deps.bus.publish(PROGRESS_TOPIC, [{ key: jobId, value: toBinary(JobProgressSchema, message) }]);
  }

  async handle(job: JobQueued): Promise<void> {
    const { log } = this.deps;
    const jobId = job.jobId;
    const previous = await this.attempts.get(jobId);
    if (previous?.finished) return; // a redelivery of a job already reported as ended
    const attempt = (previous?.attempts ?? 0) + 1;
    await this.attempts.put(jobId, { attempts: attempt, finished: false });

    const finish = async (type: 'job_completed' | 'job_failed' | 'job_cancelled', data: Record<string, unknown>) => {
      await this.report(jobId, type, data);
      await this.attempts.put(jobId, { attempts: attempt, finished: true });
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
      await this.run(job, attempt);
      await this.attempts.put(jobId, { attempts: attempt, finished: true });
    } catch (err) {
      if (err instanceof Cancelled) {
        await finish('job_cancelled', { reason: 'cancelled_by_admin' });
      } else {
        log.error({ err, job_id: jobId }, 'analysis failed');
        await finish('job_failed', { error: userMessage(err), refund: true });
      }
    } finally {
      await this.deps.objects.delete(job.videoKey).catch((err: unknown) => log.warn({ err, job_id: jobId }, 'could not delete the raw video'));
    }
  }

  private async run(job: JobQueued, attempt: number): Promise<void> {
    const { objects, analyzer, pricing, detect } = this.deps;
    const jobId = job.jobId;
    const params = job.params!;
    const controller = new AbortController();
    const { signal } = controller;
    setMaxListeners(100, signal); // every ffmpeg process and model call of the job listens to it
    const poll = setInterval(() => {
      void this.cancels.get(jobId).then((c) => c && controller.abort(new Cancelled()));
    }, this.deps.cancelPollMs ?? 500);
    const checkpoint = async () => {
      if (signal.aborted || (await this.cancels.get(jobId))) throw new Cancelled();
    };
    const work = await mkdtemp(join(tmpdir(), 'baret-job-'));
    try {
      await this.report(jobId, 'job_started', attempt > 1 ? { attempt, resumed: true } : { attempt });
      const videoPath = join(work, 'video');
      const head = await objects.head(job.videoKey);
      if (!head) throw new UserFacingError('The uploaded video is no longer available. Please upload it again.');
      await pipeline(await objects.get(job.videoKey), createWriteStream(videoPath));
      const info = await probeVideo(videoPath, signal);
      await this.report(jobId, 'video_opened', {
        duration_sec: round(info.durationSec, 3),
        width: info.width,
        height: info.height,
        fps: round(info.fps, 3),
        codec: info.codec,
      });
      await checkpoint();

      const count = params.targetComposites * params.framesPerComposite;
      const started = Date.now();
      const frames: SampledFrame[] =
        params.sampling === 'person'
          ? await samplePersonFocus(videoPath, info, count, detect, { signal })
          : await sampleUniform(videoPath, info, count, { signal });
      if (frames.length === 0) throw new UserFacingError('No frames could be read from this video.');
      await this.report(jobId, 'frames_sampled', {
        count: frames.length,
        sampling: params.sampling,
        times_sec: frames.map((f) => round(f.timeSec, 2)),
        elapsed_ms: Date.now() - started,
      });
      await checkpoint();

      for (const f of frames) await objects.put(`jobs/${jobId}/frames/${String(f.index).padStart(3, '0')}.jpg`, f.jpeg, { contentType: 'image/jpeg' });
      await this.report(jobId, 'frames_saved', { count: frames.length });
      await checkpoint();

      const composites = await buildComposites(frames, { targetComposites: params.targetComposites, framesPerComposite: params.framesPerComposite });
      for (const c of composites) await objects.put(`jobs/${jobId}/composites/${c.index}.jpg`, c.jpeg, { contentType: 'image/jpeg' });
      await this.report(jobId, 'composites_created', { count: composites.length, frames_per_composite: params.framesPerComposite });
      await checkpoint();

      const price = pricing.priceFor(analyzer.modelName);
      await this.report(jobId, 'model_pricing', {
        model: analyzer.modelName,
        input_per_1m: price.inputPer1m,
        output_per_1m: price.outputPer1m,
        currency: price.currency,
        known_price: price.known,
      });
      const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
      let cost = 0;
      const spend = async (u: TokenUsage, step: string) => {
        usage.promptTokens += u.promptTokens;
        usage.completionTokens += u.completionTokens;
        const c = estimateCost(u, price);
        cost = Math.round((cost + c) * 1e6) / 1e6;
        await this.report(jobId, 'llm_usage', { step, prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, estimated_cost: c, currency: price.currency });
      };

      let jobType = params.jobType;
      if (jobType === 'auto') {
        const classification = await analyzer.classifyJob(composites.slice(0, 2), taskOptions('en'), signal);
        await spend(classification.usage, 'classify');
        jobType = classification.slug;
        await this.report(jobId, 'job_classified', {
          job_type: jobType,
          method: classification.confidence === 0 ? 'fallback' : 'model',
          confidence: classification.confidence ?? null,
        });
      } else {
        await this.report(jobId, 'job_classified', { job_type: jobType, method: 'manual' });
      }
      const task = findTask(jobType);
      const findings = new Findings(task?.required_groups ?? []);
      await checkpoint();

      for (const composite of composites) {
        const codes = findings.codesToAsk(params.dedupeByEquipment);
        if (codes.length === 0) break;
        const analysis = await analyzer.analyzeComposite(composite, { equipment: equipmentOptions(codes, 'en') }, signal);
        findings.add(composite.index, analysis);
        await spend(analysis.usage, `composite_${composite.index}`);
        await this.report(jobId, 'composite_analyzed', {
          index: composite.index,
          asked: codes,
          seen: analysis.seen.map((s) => s.code),
          missing: analysis.missing,
          not_checked: analysis.notChecked,
          persons: analysis.persons ?? null,
        });
        await checkpoint();
        const remaining = composites.length - composite.index - 1;
        if (findings.complete && remaining > 0) {
          await this.report(jobId, 'early_stop_triggered', { after_composite: composite.index, skipped: remaining });
          break;
        }
      }

      const result = findings.result({ jobType, modelUsed: analyzer.modelName, usage, estimatedCost: cost, currency: price.currency });
      await this.report(jobId, 'job_completed', { result });
    } catch (err) {
      if (signal.aborted || err instanceof Cancelled) throw new Cancelled();
      throw err;
    } finally {
      clearInterval(poll);
      await rm(work, { recursive: true, force: true });
    }
  }
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
