import { ForbiddenError, IllegalStateError, NotFoundError, type Decider } from '@baret/platform';
import { countViolations, findingKey, type ReviewVerdict } from './findings.js';
import { evolveJob, initialJobState, isFinished, PROGRESS_EVENTS, type JobEvent, type JobQueuedData, type JobState } from './job.js';

export type QueueJob = { type: 'queue_job'; data: JobQueuedData };
/** A report of the analysis worker: one log event with its data. */
export type RecordProgress = { type: 'record_progress'; data: { event: string; data: Record<string, unknown>; at: Date } };
export type CancelJob = { type: 'cancel_job'; data: { requested_by: string; now: Date } };
export type DeleteJob = { type: 'delete_job'; data: { deleted_by: string; now: Date } };
/** Erases a finished (or deleted) job's data: once; a job already purged gives no event. */
export type PurgeJob = { type: 'purge_job'; data: { reason: 'retention' | 'erasure'; now: Date } };
/**
 * A reviewer's verdict on one finding of a done job (issue 53). Who may review is checked by the
 * use case (review.ts: the job's organisation's managers, a personal job's owner); the decider
 * keeps what the job itself says: done, the finding exists, an organisation's job is not reviewed
 * by the person who recorded it, and the same verdict (and note) already standing records nothing.
 */
export type ReviewFinding = {
  type: 'review_finding';
  data: { worker: number; group: string; verdict: ReviewVerdict; note: string | null; reviewer: { id: string; email: string; name: string | null }; now: Date };
};
export type JobCommand = QueueJob | RecordProgress | CancelJob | DeleteJob | PurgeJob | ReviewFinding;

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

export const REVIEW_NOT_DONE = 'Only the findings of a completed analysis can be reviewed.';
export const REVIEW_OWN_JOB = 'You cannot review the findings of a job you recorded: another manager of your organisation reviews them.';
export const NO_SUCH_FINDING = 'This job has no such finding: check the worker and the equipment group.';

function decideReview(cmd: ReviewFinding['data'], state: JobState): JobEvent[] {
  const job = existing(state);
  if (job.status !== 'done') throw new IllegalStateError(REVIEW_NOT_DONE);
  // Four eyes: in an organisation, nobody clears (or confirms) the findings of a video they recorded.
  if (job.org_id && cmd.reviewer.id === job.user_id) throw new ForbiddenError(REVIEW_OWN_JOB);
  const key = findingKey(cmd.worker, cmd.group);
  const finding = job.findings?.[key];
  if (!finding) throw new NotFoundError(NO_SUCH_FINDING, { worker: cmd.worker, group: cmd.group });
  const reviews = job.reviews ?? {};
  const standing = reviews[key];
  if (standing && standing.verdict === cmd.verdict && standing.note === cmd.note) return [];
  const findings = job.findings ?? {};
  return [
    {
      type: 'finding_reviewed',
      data: {
        ...ends(job),
        worker: cmd.worker,
        group: cmd.group,
        model_verdict: finding.verdict,
        verdict: cmd.verdict,
        reviewer_id: cmd.reviewer.id,
        reviewer_email: cmd.reviewer.email,
        reviewer_name: cmd.reviewer.name,
        at: cmd.now.toISOString(),
        ...(cmd.note ? { note: cmd.note } : {}),
        violation_count: countViolations(findings, { ...reviews, [key]: { verdict: cmd.verdict } }, job.model_violations),
        previous_violation_count: countViolations(findings, reviews, job.model_violations),
      },
    },
  ];
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
    case 'review_finding':
      return decideReview(command.data, state);
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
