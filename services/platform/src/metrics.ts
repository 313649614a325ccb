/**
 * Prometheus metrics (prom-client, docs/adr/0014): one registry per process, served at `/metrics`
 * by every Baret HTTP server (each service process, the gateway, the embedded run). The metrics
 * are defined once here, so a process that runs several services (embedded) counts each once.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

const registers = [metricsRegistry];

export const httpRequestDuration = new Histogram({
  name: 'baret_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by route pattern, method and status code',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers,
});

export const uploadBytes = new Counter({
  name: 'baret_upload_bytes_total',
  help: 'Video bytes received, by upload kind (multipart POST /analyze, resumable tus PATCH)',
  labelNames: ['kind'] as const,
  registers,
});

export const jobStageDuration = new Histogram({
  name: 'baret_job_stage_duration_seconds',
  help: "Duration of a finished job's analysis stages (probe, sampling, composites, classification, model, total), from its timeline",
  labelNames: ['stage'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
  registers,
});

export const jobsFinished = new Counter({
  name: 'baret_jobs_finished_total',
  help: 'Jobs that ended, by status (done, error, cancelled)',
  labelNames: ['status'] as const,
  registers,
});

export const modelTokens = new Counter({
  name: 'baret_model_tokens_total',
  help: 'Vision model tokens spent by finished jobs, by model and kind (prompt, completion)',
  labelNames: ['model', 'kind'] as const,
  registers,
});

export const modelCost = new Counter({
  name: 'baret_model_cost_total',
  help: 'Estimated vision model cost of finished jobs, by model and currency',
  labelNames: ['model', 'currency'] as const,
  registers,
});

type Sample<L extends string> = { labels: Record<L, string>; value: number };

/**
 * A gauge whose values come from sources asked at scrape time (a read model, a bus). Returns how
 * to add a source; adding returns the undo.
 */
function sourcedGauge<L extends string>(name: string, help: string, labelNames: readonly L[]) {
  const sources = new Set<() => Promise<Array<Sample<L>>>>();
  new Gauge({
    name,
    help,
    labelNames,
    registers,
    async collect() {
      this.reset();
      const results = await Promise.allSettled([...sources].map((s) => s()));
      for (const r of results) if (r.status === 'fulfilled') for (const { labels, value } of r.value) this.set(labels as never, value);
    },
  });
  return (source: () => Promise<Array<Sample<L>>>): (() => void) => {
    sources.add(source);
    return () => sources.delete(source);
  };
}

const jobsGauge = sourcedGauge('baret_jobs', 'Jobs by status, from the job read model', ['status']);

/** Counts jobs by status at each scrape (the job service, from its read model). Returns the undo. */
export const observeJobs = (countByStatus: () => Promise<Record<string, number>>): (() => void) =>
  jobsGauge(async () => Object.entries(await countByStatus()).map(([status, value]) => ({ labels: { status }, value })));

export interface ConsumerLag {
  group: string;
  topic: string;
  /** Messages published to the topic and not yet committed by the group. */
  lag: number;
}

const lagGauge = sourcedGauge('baret_queue_lag', 'Messages not yet handled by a consumer group of this process, by group and topic', ['group', 'topic']);

/** Reports the consumer lag of a bus's groups at each scrape. Returns the undo. */
export const observeQueueLag = (lag: () => Promise<ConsumerLag[]>): (() => void) =>
  lagGauge(async () => (await lag()).map((l) => ({ labels: { group: l.group, topic: l.topic }, value: l.lag })));
