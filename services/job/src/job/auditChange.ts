import type { AuditSource } from '@baret/platform';
import type { JobDoc } from '../readModels/jobs.js';
import type { JobDeps } from './deps.js';

/**
 * The audit entry of a cancellation or deletion, keyed by the job event that made it: a retried
 * or concurrent second request adds no event, so no second entry. `by` is a user id, or
 * `system:<why>` (a deleted account, retention): then the entry has no actor and says why.
 */
export async function auditJobChange(
  deps: Pick<JobDeps, 'audit'>,
  action: 'job.cancelled' | 'job.deleted',
  job: JobDoc | null,
  jobId: string,
  by: string,
  events: ReadonlyArray<{ id: string; type: string }>,
  from: AuditSource,
) {
  const made = events.find((e) => e.type === (action === 'job.deleted' ? 'job_deleted' : 'job_cancel_requested'));
  if (!made) return;
  const system = by.startsWith('system:');
  await deps.audit.record({
    action,
    actorId: system ? null : by,
    orgId: job?.org_id ?? null,
    objectType: 'job',
    objectId: jobId,
    ip: from.ip,
    userAgent: from.userAgent,
    details: { ...(system ? { by: by.slice('system:'.length) } : {}), ...(job && job.user_id !== by ? { owner: job.user_id } : {}) },
    key: made.id,
  });
}
