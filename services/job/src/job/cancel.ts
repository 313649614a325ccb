import type { AuditSource } from '@baret/platform';
import { auditJobChange } from './auditChange.js';
import type { JobDeps } from './deps.js';
import { runJob } from './run.js';

/** Stops a queued or running job (its quota unit goes back); `by` a user id or `system:<why>`, recorded in the audit log. */
export async function cancel(deps: JobDeps, jobId: string, by: string, from: AuditSource = {}) {
  const before = await deps.jobs.get(jobId);
  const result = await runJob(deps, jobId, { type: 'cancel_job', data: { requested_by: by, now: deps.clock() } });
  await auditJobChange(deps, 'job.cancelled', before, jobId, by, result.recorded, from);
  const job = await deps.jobs.get(jobId);
  return { job_id: jobId, status: job?.status ?? 'cancelled' };
}
