import type { LogEntry } from '@/types/api';

export type ProgressPhase = 'waiting' | 'sampling' | 'composing' | 'analyzing' | 'finishing';

export interface JobProgress {
  phase: ProgressPhase;
  /**
   * Frames sampled so far and asked for (target composites × frames per composite); while
   * sampling, as far as the worker's latest `frames_sampling` report says (toward the frames it
   * will give, fewer than asked for a very short video).
   */
  frames: { done: number; total: number | null };
  /** Composites analysed so far and built. */
  composites: { done: number; total: number | null };
  /** 0..100 over the whole job, weighted by where the time goes (sampling 5–30 %, analysis 40–95 %). */
  percent: number;
  /** Estimated seconds left, from the pace of the composites analysed so far; null until one is. */
  secondsLeft: number | null;
}

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const at = (entry: LogEntry | undefined): number | null => (entry ? Date.parse(entry.timestamp) : null);

/**
 * Progress of a running job from its timeline alone (the events the analysis service reports):
 * frames n/N while they are sampled and once they are, composites n/N as each is analysed, and the
 * time left at the pace so far.
 */
export function jobProgress(logs: readonly LogEntry[], now: number = Date.now()): JobProgress {
  const find = (event: string) => logs.findLast((entry) => entry.event === event);
  const queued = find('job_queued');
  const params = (queued?.data?.params ?? {}) as Record<string, unknown>;
  const asked = num(params.target_composites) !== null && num(params.frames_per_composite) !== null ? num(params.target_composites)! * num(params.frames_per_composite)! : null;
  const sampled = find('frames_sampled');
  const created = find('composites_created');
  const analyzed = logs.filter((entry) => entry.event === 'composite_analyzed');
  const compositesTotal = num(created?.data?.count) ?? num(params.target_composites);
  const composites = { done: analyzed.length, total: compositesTotal };

  const phase: ProgressPhase = !find('job_started')
    ? 'waiting'
    : !sampled
      ? 'sampling'
      : !created
        ? 'composing'
        : compositesTotal !== null && analyzed.length >= compositesTotal
          ? 'finishing'
          : 'analyzing';

  // While sampling: the latest progress report of this run (a resumed job samples again).
  const resumed = logs.findLastIndex((entry) => entry.event === 'job_resumed');
  const sampling = phase === 'sampling' ? logs.slice(resumed + 1).findLast((entry) => entry.event === 'frames_sampling') : undefined;
  const samplingDone = num(sampling?.data?.done);
  const samplingTotal = num(sampling?.data?.total);
  const reported = samplingDone !== null && samplingTotal !== null && samplingTotal > 0;
  const frames = reported
    ? { done: Math.min(samplingDone, samplingTotal), total: samplingTotal }
    : { done: num(sampled?.data?.count) ?? 0, total: asked ?? num(sampled?.data?.count) };
  const sampledShare = reported ? Math.min(1, Math.max(0, samplingDone / samplingTotal)) : 0;

  const share = compositesTotal ? Math.min(1, analyzed.length / compositesTotal) : 0;
  const percent = { waiting: 0, sampling: 5 + 25 * sampledShare, composing: 30, analyzing: 40 + 55 * share, finishing: 97 }[phase];

  let secondsLeft: number | null = null;
  const startedAt = at(created);
  const lastAt = at(analyzed.at(-1));
  if (phase === 'analyzing' && startedAt !== null && lastAt !== null && compositesTotal) {
    const perComposite = (lastAt - startedAt) / analyzed.length / 1000;
    const sinceLast = Math.max(0, (now - lastAt) / 1000);
    secondsLeft = Math.max(1, Math.round(perComposite * (compositesTotal - analyzed.length) - sinceLast));
  }
  return { phase, frames, composites, percent, secondsLeft };
}
