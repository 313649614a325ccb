import { fold } from '@baret/platform';
import { jobDecider } from './businessLogic.js';
import type { JobDeps } from './deps.js';
import { isFinished, jobStream } from './job.js';
import { runJob } from './run.js';

/**
 * Appends a progress report of the analysis worker to the job's stream, once: a report whose
 * event id is already in the stream (redelivered, or reported again by a worker resuming the
 * job after a restart) changes nothing.
 */
export async function recordProgress(deps: JobDeps, report: { job_id: string; event_id: string; type: string; data: Record<string, unknown>; at: string }) {
  // The stream decides, not the read model: a report may arrive before the job's document is
  // written (the worker can be faster than the inline projection), and must not be dropped then.
  const recorded = await deps.eventStore.readStream(jobStream(report.job_id));
  if (recorded.length === 0) return;
  if (isFinished(fold(jobDecider, recorded).status)) return;
  if (recorded.some((e) => e.metadata.report_id === report.event_id)) return;
  await runJob(deps, report.job_id, { type: 'record_progress', data: { event: report.type, data: report.data, at: new Date(report.at) } }, { report_id: report.event_id });
}
