import type { AuditSource } from '@baret/platform';
import { auditJobChange } from './auditChange.js';
import type { JobDeps } from './deps.js';
import { deleteObjects, runJob } from './run.js';

/** Deletes a job; `by` a user id or `system:<why>` (retention: `system:retention`), recorded in the audit log. */
export async function remove(deps: JobDeps, jobId: string, by: string, from: AuditSource = {}) {
  const before = await deps.jobs.get(jobId);
  const result = await runJob(deps, jobId, { type: 'delete_job', data: { deleted_by: by, now: deps.clock() } });
  await auditJobChange(deps, 'job.deleted', before, jobId, by, result.recorded, from);
  await deleteObjects(deps, jobId);
  // A deleted job's personal data goes from its events too.
  await deps.shredder?.shred(`job:${jobId}`);
}
