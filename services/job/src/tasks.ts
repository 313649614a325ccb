import { getMaxListeners, setMaxListeners } from 'node:events';
import { fromBinary } from '@bufbuild/protobuf';
import { JobProgressSchema } from '@baret/proto';
import { decodeEnvelope, PROGRESS_TOPIC, runConsumer, type BackgroundTask, type MessageBus } from '@baret/platform';
import type { JobDeps } from './job/deps.js';
import { recordProgress } from './job/progress.js';
import { removeUserJobs } from './job/removeUserJobs.js';
import { reportJobsByStatus } from './metrics.js';
import { backfillPeriods } from './readModels/compliance.js';
import { applyOrgEvent } from './readModels/orgs.js';
import type { Retention } from './retention.js';

export interface JobTaskOptions {
  bus: MessageBus;
  retention: Retention;
  /** RETENTION_SWEEP_MINUTES: how often jobs past their period are looked for (and at start); default 60. */
  retentionSweepMinutes?: number;
  /** How long an unused resumable upload is kept. */
  uploadExpiryMs: number;
}

/**
 * The job service's background work: the analysis worker's progress, weeks and months of the
 * compliance read model, /metrics, a deleted user's jobs, the retention sweep, abandoned uploads,
 * the organisations' names and time zones.
 */
export function jobTasks(deps: JobDeps, o: JobTaskOptions): BackgroundTask[] {
  const { bus, retention } = o;
  const { documents, jobs, log, resumable } = deps;
  return [
    {
      name: 'job:progress',
      run: (signal) =>
        runConsumer(bus, 'job-progress', [PROGRESS_TOPIC], async (message) => {
          const p = fromBinary(JobProgressSchema, message.value);
          await recordProgress(deps, { job_id: p.jobId, event_id: p.eventId, type: p.type, data: p.data ?? {}, at: p.at });
        }, signal),
    },
    {
      // Weeks and months of a compliance read model from before they existed: once, at start.
      name: 'job:compliance-periods',
      run: async (signal) => {
        const n = await backfillPeriods(documents);
        if (n > 0) log.info({ periods: n }, 'compliance weeks and months computed from the days');
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
    },
    // /metrics: jobs by status, from the read model.
    { name: 'job:metrics', run: (signal) => reportJobsByStatus(jobs, signal) },
    {
      name: 'job:user-deleted',
      run: (signal) =>
        runConsumer(bus, 'job-users', ['user-events'], async (message) => {
          const event = decodeEnvelope(message.value);
          if (event.type === 'user_deleted') await removeUserJobs(deps, String(event.data.user_id));
        }, signal),
    },
    {
      name: 'job:retention',
      // At start, then every RETENTION_SWEEP_MINUTES.
      run: (signal) => repeat(signal, (o.retentionSweepMinutes ?? 60) * 60_000, () => retention.sweep().catch((err: unknown) => log.warn({ err }, 'retention sweep failed'))),
    },
    {
      name: 'job:upload-expiry',
      // Abandoned resumable uploads: swept at start and then every quarter of the expiry (at most hourly).
      run: (signal) =>
        repeat(signal, Math.max(60_000, Math.min(3600_000, o.uploadExpiryMs / 4)), () => resumable.deleteExpired().catch((err: unknown) => log.warn({ err }, 'expired upload sweep failed'))),
    },
    {
      // The organisations' names and time zones, for their reports (issue 54). Last: the sweeps above
      // raise the signal's listener limit first.
      name: 'job:orgs',
      run: (signal) => runConsumer(bus, 'job-orgs', ['org-events'], async (message) => applyOrgEvent(documents, decodeEnvelope(message.value)), signal),
    },
  ];
}

/** Does `work` now, then every `everyMs`, until `signal` aborts. */
async function repeat(signal: AbortSignal, everyMs: number, work: () => Promise<unknown>): Promise<void> {
  // Every background task of the process waits on this one signal.
  setMaxListeners(Math.max(getMaxListeners(signal), 50), signal);
  while (!signal.aborted) {
    await work();
    await new Promise<void>((resolve) => {
      const stop = () => (clearTimeout(timer), resolve());
      const timer = setTimeout(() => (signal.removeEventListener('abort', stop), resolve()), everyMs);
      signal.addEventListener('abort', stop, { once: true });
    });
  }
}
