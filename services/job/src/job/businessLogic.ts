import { IllegalStateError, NotFoundError, type Decider } from '@baret/platform';
import { evolveJob, initialJobState, isFinished, PROGRESS_EVENTS, type JobEvent, type JobQueuedData, type JobState } from './job.js';

export type QueueJob = { type: 'queue_job'; data: JobQueuedData };
/** A report of the analysis worker: one log event with its data. */
export type RecordProgress = { type: 'record_progress'; data: { event: string; data: Record<string, unknown>; at: Date } };
export type CancelJob = { type: 'cancel_job'; data: { requested_by: string; now: Date } };
export type DeleteJob = { type: 'delete_job'; data: { deleted_by: string; now: Date } };
/** Erases a finished (or deleted) job's data: once; a job already purged gives no event. */
export type PurgeJob = { type: 'purge_job'; data: { reason: 'retention' | 'erasure'; now: Date } };
export type JobCommand = QueueJob | RecordProgress | CancelJob | DeleteJob | PurgeJob;

const isProgress = (t: string): t is (typeof PROGRESS_EVENTS)[number] => (PROGRESS_EVENTS as readonly string[]).includes(t);

function existing(state: JobState): Exclude<JobState, { status: 'none' }> {
  if (state.status === 'none' || state.status === 'deleted' || state.status === 'purged') throw new NotFoundError('This job does not exist.');
  return state;
}

const ends = (state: Exclude<JobState, { status: 'none' }>) => ({
  job_id: state.job_id,
  user_id: state.user_id,
  input_filename: state.input_filename,
  // The organisation's managers are told of its members' jobs (issue 29).
  ...(state.org_id ? { org_id: state.org_id } : {}),
});

/**
 * Reports are accepted only where they make sense: a late report about a job that already ended
 * (or a redelivered one) changes nothing, so the timeline stays true.
 */
function decideProgress(cmd: RecordProgress['data'], state: JobState): JobEvent[] {
  if (state.status === 'none' || state.status === 'deleted' || state.status === 'purged' || isFinished(state.status)) return [];
  const at = cmd.at.toISOString();
  const d = cmd.data;
  switch (cmd.event) {
    case 'job_started':
      return [{ type: 'job_started', data: { ...d, at } }];
    case 'job_completed': {
      if (state.status !== 'running') return [];
      const result = (d.result ?? {}) as Record<string, unknown>;
      const violations = Array.isArray(result.violations) ? result.violations.length : 0;
      return [{ type: 'job_completed', data: { ...ends(state), at, result, violation_count: violations } }];
    }
    case 'job_failed':
      return [{ type: 'job_failed', data: { ...ends(state), at, error: String(d.error ?? 'The analysis failed.'), refund: d.refund !== false } }];
    case 'job_cancelled':
      return [{ type: 'job_cancelled', data: { at, reason: String(d.reason ?? 'cancelled') } }];
    case 'llm_usage':
      // The user travels with the usage, so per-user totals never need the job's other events.
      return state.status === 'running' ? [{ type: 'llm_usage', data: { ...d, user_id: state.user_id, at } }] : [];
    default:
      return isProgress(cmd.event) && state.status === 'running' ? [{ type: cmd.event, data: { ...d, at } }] : [];
  }
}

export function decideJob(command: JobCommand, state: JobState): JobEvent[] {
  switch (command.type) {
    case 'queue_job':
      if (state.status !== 'none') throw new IllegalStateError('This job already exists.');
      return [{ type: 'job_queued', data: command.data }];
    case 'record_progress':
      return decideProgress(command.data, state);
    case 'cancel_job': {
      const job = existing(state);
      if (job.status !== 'queued' && job.status !== 'running') {
        throw new IllegalStateError('Only queued or running jobs can be cancelled.');
      }
      const at = command.data.now.toISOString();
      const requested: JobEvent = { type: 'job_cancel_requested', data: { job_id: job.job_id, requested_by: command.data.requested_by, at } };
      if (job.cancel_requested) return [];
      // A job no worker has started stops at once; a running one stops at the worker's next step.
      return job.status === 'queued' ? [requested, { type: 'job_cancelled', data: { at, reason: 'cancelled_by_admin' } }] : [requested];
    }
    case 'delete_job': {
      const job = existing(state);
      if (!isFinished(job.status)) throw new IllegalStateError('Only finished jobs can be deleted. Cancel the job first.');
      return [{ type: 'job_deleted', data: { job_id: job.job_id, deleted_by: command.data.deleted_by, at: command.data.now.toISOString() } }];
    }
    case 'purge_job': {
      if (state.status === 'none' || state.status === 'purged') return [];
      if (state.status === 'queued' || state.status === 'running') throw new IllegalStateError('Only finished jobs can be purged.');
      return [{ type: 'job_purged', data: { job_id: state.job_id, org_id: state.org_id, reason: command.data.reason, at: command.data.now.toISOString() } }];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const jobDecider: Decider<JobState, JobCommand, JobEvent> = {
  initialState: initialJobState,
  evolve: evolveJob,
  decide: decideJob,
};
