import type { JobDeps } from './deps.js';
import { isFinished } from './job.js';
import { purge } from './purge.js';
import { deleteObjects, runJob } from './run.js';

/**
 * A deleted (or erased, issue 30) user's jobs: their own jobs are stopped and purged; jobs of an
 * organisation stay with it, anonymised (the owner's name and address gone from the read model,
 * and from the job's events with the user's key). Their usage row goes.
 */
export async function removeUserJobs(deps: JobDeps, userId: string) {
  const { jobs } = deps;
  for (const job of await jobs.find({ where: { user_id: userId } })) {
    if (!isFinished(job.status)) await runJob(deps, job.id, { type: 'cancel_job', data: { requested_by: 'system:user-deleted', now: deps.clock() } }).catch(() => undefined);
    const current = await jobs.get(job.id);
    if (!current) continue;
    if (current.org_id) {
      await jobs.put(job.id, { ...current, user_email: '', user_full_name: null, owner_deleted: true });
    } else if (isFinished(current.status)) {
      await purge(deps, job.id, 'erasure');
    } else {
      await deleteObjects(deps, job.id);
      await jobs.delete(job.id);
    }
    deps.cache.changed(job.id, [userId]);
  }
  await deps.shredder?.shred(`user:${userId}`);
  await deps.usage.delete(userId);
}
