import { handleCommand, projectInline, quotaAccountOf } from '@baret/platform';
import { recordFinishedJob } from '../metrics.js';
import { complianceProjection } from '../readModels/compliance.js';
import { jobDecider, type JobCommand } from './businessLogic.js';
import type { JobDeps } from './deps.js';
import { jobStream, type JobEvent } from './job.js';

/** The events that end a job (counted in /metrics). */
const JOB_ENDS = new Set(['job_completed', 'job_failed', 'job_cancelled']);

/** Every object key a job owns: its raw video and everything the analysis saved for it. */
export const jobPrefixes = (jobId: string): string[] => [`uploads/${jobId}/`, `jobs/${jobId}/`];

/**
 * A command on a job: decided on its stream, its events projected at once (the jobs and compliance
 * read models), their side effects done, and a job that ended counted in /metrics.
 */
export async function runJob(deps: JobDeps, jobId: string, command: JobCommand, metadata?: Record<string, unknown>) {
  const { eventStore, documents } = deps;
  const result = await handleCommand(eventStore, jobStream(jobId), jobDecider, command, { metadata });
  await projectInline([deps.jobsView, complianceProjection], result.recorded, documents, eventStore);
  await afterEvents(deps, jobId, result.state, result.newEvents);
  if (result.newEvents.some((e) => JOB_ENDS.has(e.type))) {
    recordFinishedJob(await eventStore.readStream(jobStream(jobId)), await deps.jobs.get(jobId));
  }
  return result;
}

/** Side effects of a job ending: its quota unit back when owed, its raw video gone. */
async function afterEvents(deps: JobDeps, jobId: string, state: { status: string; user_id?: string; org_id?: string | null; video_key?: string }, events: JobEvent[]) {
  for (const e of events) {
    const refund = e.type === 'job_cancelled' || (e.type === 'job_failed' && e.data.refund);
    // The unit goes back to the account it was taken from: the organisation's, or the user's.
    if (refund && state.user_id) await deps.quota.release(quotaAccountOf({ userId: state.user_id, orgId: state.org_id }), jobId, e.type);
    if ((e.type === 'job_completed' || e.type === 'job_failed' || e.type === 'job_cancelled') && state.video_key) {
      await deps.objects.delete(state.video_key);
    }
  }
}

/** Deletes every object a job owns. */
export async function deleteObjects(deps: Pick<JobDeps, 'objects'>, jobId: string) {
  for (const prefix of jobPrefixes(jobId)) for (const key of await deps.objects.list(prefix)) await deps.objects.delete(key);
}
