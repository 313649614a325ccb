import { fold, IllegalStateError } from '@baret/platform';
import { COMPLIANCE as COMPLIANCE_JOBS } from '../readModels/compliance.js';
import { jobDecider } from './businessLogic.js';
import type { JobDeps } from './deps.js';
import { jobStream } from './job.js';
import { deleteObjects, runJob } from './run.js';

/**
 * Erases a finished job (retention, or its owner's erasure): its objects, its key (every event
 * payload of the job reads redacted from then on), then `job_purged` recorded once (the stream
 * decides, so two replicas purging at once record it once) and its read-model rows. Each step is
 * idempotent: a purge cut off half-way is finished by the next sweep (the row is still there).
 * Returns whether this call recorded the purge (of two replicas racing, one does).
 */
export async function purge(deps: JobDeps, jobId: string, reason: 'retention' | 'erasure') {
  const { eventStore, documents, jobs, log } = deps;
  const state = fold(jobDecider, await eventStore.readStream(jobStream(jobId)));
  if (state.status === 'queued' || state.status === 'running') throw new IllegalStateError('Only finished jobs can be purged.');
  // Objects and key first: once the job's row is gone (the event's projection), nothing of it is left.
  const before = await jobs.get(jobId);
  await deleteObjects(deps, jobId);
  await deps.shredder?.shred(`job:${jobId}`);
  const recorded = await runJob(deps, jobId, { type: 'purge_job', data: { reason, now: deps.clock() } });
  await documents.collection(COMPLIANCE_JOBS).delete(jobId);
  await jobs.delete(jobId);
  deps.cache.changed(jobId, before ? [before.user_id] : []);
  const won = recorded.newEvents.length > 0;
  if (won) log.info({ job_id: jobId, reason }, 'job purged');
  // The audit log keeps the deletion (ADR 0023): once, keyed by the purge event, with no actor.
  const made = recorded.recorded.find((e) => e.type === 'job_purged');
  if (made) await deps.audit.record({ action: 'job.deleted', actorId: null, orgId: before?.org_id ?? null, objectType: 'job', objectId: jobId, details: { by: reason }, key: made.id });
  return won;
}
