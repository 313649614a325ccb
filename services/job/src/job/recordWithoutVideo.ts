import { randomUUID } from 'node:crypto';
import { quotaAccountOf, type Principal } from '@baret/platform';
import { QuotaExceededError } from '../errors.js';
import type { JobDeps } from './deps.js';
import { runJob } from './run.js';
import { checkContext } from './submit.js';

/**
 * A finished job recorded without a video (`npm run admin -- seed-demo`): queued, started and
 * completed through the job's decider like any other, so every read model (the compliance one
 * included) is projected from its events. Charged to the principal's account like an upload.
 */
export async function recordFinishedJobWithoutVideo(
  deps: JobDeps,
  principal: Principal,
  input: {
    queued_at: Date;
    finished_at: Date;
    job_type: string;
    input_filename: string;
    result: Record<string, unknown>;
    site_id: string | null;
    crew_id: string | null;
    work_order: string | null;
    /** The video's length, as the analysis would have read it. */
    video_duration_sec?: number;
  },
) {
  const jobId = randomUUID();
  await checkContext(deps, principal, input);
  const reservation = await deps.quota.reserve(quotaAccountOf(principal), jobId);
  if (!reservation.ok) throw new QuotaExceededError(reservation.reason, principal.orgRole === 'member');
  const params = { job_type: input.job_type, sampling: 'person' as const, target_composites: 6, frames_per_composite: 4, dedupe_by_equipment: true };
  await runJob(deps, jobId, {
    type: 'queue_job',
    data: {
      job_id: jobId,
      user_id: principal.userId,
      user_email: principal.email,
      user_full_name: principal.fullName,
      input_filename: input.input_filename,
      video_key: '',
      video_size: 0,
      params,
      queued_at: input.queued_at.toISOString(),
      org_id: principal.orgId ?? null,
      site_id: input.site_id,
      crew_id: input.crew_id,
      work_order: input.work_order,
    },
  });
  await runJob(deps, jobId, { type: 'record_progress', data: { event: 'job_started', data: {}, at: input.queued_at } });
  if (input.video_duration_sec !== undefined) await runJob(deps, jobId, { type: 'record_progress', data: { event: 'video_opened', data: { duration_sec: input.video_duration_sec }, at: input.queued_at } });
  await runJob(deps, jobId, { type: 'record_progress', data: { event: 'job_completed', data: { result: input.result }, at: input.finished_at } });
  return jobId;
}
