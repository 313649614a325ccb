import { jobsFinished, jobStageDuration, modelCost, modelTokens, observeJobs, type Collection, type RecordedEvent } from '@baret/platform';
import { isFinished, JOB_STATUSES } from './job/job.js';
import type { JobDoc } from './readModels/jobs.js';

/** When an event happened: the time its data names (the worker's clock), else when it was stored. */
const timeOf = (e: RecordedEvent): number => {
  const at = Date.parse(String((e.data as { at?: unknown }).at ?? ''));
  return Number.isFinite(at) ? at : e.createdAt.getTime();
};

/**
 * How long each stage of a finished job took, in seconds, from its timeline (the progress events
 * the worker reported): queue (queued → started), probe (started → video opened: download and
 * ffprobe), sampling (→ frames sampled), composites (→ composites created, frames saved included),
 * classification (→ job classified, when the job type was asked), model (→ completed: the
 * composites' analyses), total (queued → completed). A resumed job counts its last run of each step.
 */
export function stageDurations(events: readonly RecordedEvent[]): Record<string, number> {
  const last = new Map<string, number>();
  for (const e of events) last.set(e.type, timeOf(e));
  const first = (type: string) => events.find((e) => e.type === type);
  const between = (from: number | undefined, to: number | undefined) => (from !== undefined && to !== undefined && to >= from ? (to - from) / 1000 : undefined);
  const queued = first('job_queued');
  const started = first('job_started');
  const sampled = events.findLast((e) => e.type === 'frames_sampled');
  const elapsed = Number((sampled?.data as { elapsed_ms?: unknown } | undefined)?.elapsed_ms);
  const stages: Record<string, number | undefined> = {
    queue: between(queued && timeOf(queued), started && timeOf(started)),
    probe: between(last.get('job_started'), last.get('video_opened')),
    sampling: Number.isFinite(elapsed) && elapsed >= 0 ? elapsed / 1000 : between(last.get('video_opened'), last.get('frames_sampled')),
    composites: between(last.get('frames_sampled'), last.get('composites_created')),
    classification: between(last.get('composites_created'), last.get('job_classified')),
    model: between(last.get('job_classified') ?? last.get('composites_created'), last.get('job_completed')),
    total: between(queued && timeOf(queued), last.get('job_completed')),
  };
  return Object.fromEntries(Object.entries(stages).filter((s): s is [string, number] => s[1] !== undefined));
}

/** Counts a job that just ended: its status, and for a completed one its stages, tokens and cost. */
export function recordFinishedJob(events: readonly RecordedEvent[], doc: JobDoc | null): void {
  if (!doc || !isFinished(doc.status)) return;
  jobsFinished.inc({ status: doc.status });
  if (doc.status !== 'done') return;
  for (const [stage, seconds] of Object.entries(stageDurations(events))) jobStageDuration.observe({ stage }, seconds);
  const model = doc.model_used ?? 'unknown';
  if (doc.prompt_tokens > 0) modelTokens.inc({ model, kind: 'prompt' }, doc.prompt_tokens);
  if (doc.completion_tokens > 0) modelTokens.inc({ model, kind: 'completion' }, doc.completion_tokens);
  if (doc.estimated_cost) modelCost.inc({ model, currency: doc.currency }, doc.estimated_cost);
}

/** `baret_jobs{status}` at each scrape, counted in the job read model, while `signal` lasts. */
export async function reportJobsByStatus(jobs: Collection<JobDoc>, signal: AbortSignal): Promise<void> {
  const unobserve = observeJobs(async () => {
    const counts = await Promise.all(JOB_STATUSES.map((status) => jobs.count({ status })));
    return Object.fromEntries(JOB_STATUSES.map((status, i) => [status, counts[i]!]));
  });
  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  unobserve();
}
