import { NotFoundError, type Principal } from '@baret/platform';
import { ownerStillMayRead, type JobDoc } from '../readModels/jobs.js';
import type { JobDeps } from './deps.js';

/**
 * A job the caller may see: their own; for a manager, any job of their organisation; any for an
 * admin. Anything else is "not found", another organisation's job included.
 */
export async function visibleJob(deps: Pick<JobDeps, 'cache' | 'jobs'>, principal: Principal, jobId: string): Promise<JobDoc> {
  // Kept in memory for its owner only: what others may see of it is read afresh.
  const job = await deps.cache.job(jobId, () => deps.jobs.get(jobId), (doc) => doc.user_id === principal.userId);
  const managerOf = principal.orgRole === 'manager' && !!job?.org_id && job.org_id === principal.orgId;
  // A job recorded for an organisation stays with it: its owner reads it only while a member (issue 37).
  const owner = !!job && job.user_id === principal.userId && ownerStillMayRead(job, principal);
  if (!job || (!owner && !principal.isAdmin && !managerOf)) throw new NotFoundError('This job does not exist.');
  return job;
}
