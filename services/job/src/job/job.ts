/** The Job aggregate: its events are the job's timeline, as the product shows it. */

export const JOB_STATUSES = ['queued', 'running', 'done', 'error', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

import { findingKey, modelFindings, type FindingReviewedData, type ModelFinding, type ReviewVerdict } from './findings.js';

/** Events the analysis worker reports while it works; they only happen to a running job. */
export const PROGRESS_EVENTS = [
  'job_resumed',
  'video_opened',
  'frames_sampling',
  'frames_sampled',
  'frames_saved',
  'composites_created',
  'job_classified',
  'composite_analyzed',
  'early_stop_triggered',
  'model_pricing',
  'llm_usage',
] as const;
export type ProgressEventType = (typeof PROGRESS_EVENTS)[number];

export interface AnalysisParams {
  job_type: string;
  sampling: 'person' | 'uniform';
  target_composites: number;
  frames_per_composite: number;
  dedupe_by_equipment: boolean;
}

export interface JobQueuedData {
  job_id: string;
  user_id: string;
  user_email: string;
  user_full_name: string | null;
  input_filename: string;
  video_key: string;
  video_size: number;
  params: AnalysisParams;
  queued_at: string;
  /** The organisation the job belongs to (and whose quota it was charged to); absent before issue 28 and for users in none. */
  org_id?: string | null;
  /** Where and by whom it was recorded, and the work order it belongs to (free text, at most 64). */
  site_id?: string | null;
  crew_id?: string | null;
  work_order?: string | null;
}

type E<T extends string, D> = { type: T; data: D };
export type JobQueued = E<'job_queued', JobQueuedData>;
export type JobStarted = E<'job_started', { at: string; attempt?: number }>;
export type JobProgressed = E<ProgressEventType, Record<string, unknown>>;
/**
 * The job and its owner travel with its end (job_id, user_id, input_filename, violation_count), so
 * the notification service needs no other event of the job (older events may lack them).
 */
type JobEnd = { job_id?: string; user_id?: string; input_filename?: string; org_id?: string };
export type JobCompleted = E<'job_completed', JobEnd & { at: string; result: Record<string, unknown>; violation_count?: number }>;
export type JobFailed = E<'job_failed', JobEnd & { at: string; error: string; refund: boolean }>;
export type JobCancelRequested = E<'job_cancel_requested', { job_id: string; requested_by: string; at: string }>;
export type JobCancelled = E<'job_cancelled', { at: string; reason: string }>;
export type JobDeleted = E<'job_deleted', { job_id: string; deleted_by: string; at: string }>;
/**
 * The job's data was erased (issue 30): by the retention period (`retention`) or its owner's erasure
 * (`erasure`). Nothing personal: the audit log keeps it (docs/adr/0025).
 */
export type JobPurged = E<'job_purged', { job_id: string; org_id: string | null; reason: 'retention' | 'erasure'; at: string }>;

/** A manager (or a personal job's owner) reviewed one finding of a done job (issue 53): see findings.ts. */
export type FindingReviewed = E<'finding_reviewed', FindingReviewedData>;

export type JobEvent = JobQueued | JobStarted | JobProgressed | JobCompleted | JobFailed | JobCancelRequested | JobCancelled | JobDeleted | JobPurged | FindingReviewed;

export type JobState =
  | { status: 'none' }
  | {
      status: JobStatus | 'deleted' | 'purged';
      job_id: string;
      user_id: string;
      org_id: string | null;
      video_key: string;
      input_filename: string;
      cancel_requested: boolean;
      refunded: boolean;
      /** A done job's findings by key (worker|group), the result's violations counted, and the review that stands for each finding. */
      findings?: Record<string, ModelFinding>;
      model_violations?: number;
      reviews?: Record<string, { verdict: ReviewVerdict; note: string | null }>;
    };

export const initialJobState = (): JobState => ({ status: 'none' });

export const isFinished = (status: string): boolean => status === 'done' || status === 'error' || status === 'cancelled';

export function evolveJob(state: JobState, event: JobEvent): JobState {
  if (event.type === 'job_queued') {
    return { status: 'queued', job_id: event.data.job_id, user_id: event.data.user_id, org_id: event.data.org_id ?? null, video_key: event.data.video_key, input_filename: event.data.input_filename, cancel_requested: false, refunded: false };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'job_started':
      return { ...state, status: 'running' };
    case 'job_completed': {
      const violations = event.data.result?.violations;
      return { ...state, status: 'done', findings: modelFindings(event.data.result), model_violations: Array.isArray(violations) ? violations.length : 0, reviews: {} };
    }
    case 'finding_reviewed': {
      const key = findingKey(event.data.worker, event.data.group);
      return { ...state, reviews: { ...state.reviews, [key]: { verdict: event.data.verdict, note: event.data.note ?? null } } };
    }
    case 'job_failed':
      return { ...state, status: 'error', refunded: event.data.refund };
    case 'job_cancel_requested':
      return { ...state, cancel_requested: true };
    case 'job_cancelled':
      return { ...state, status: 'cancelled', refunded: true };
    case 'job_deleted':
      return { ...state, status: 'deleted' };
    case 'job_purged':
      return { ...state, status: 'purged' };
    default:
      return state; // progress events leave the state as it is
  }
}

export const jobStream = (jobId: string): string => `job-${jobId}`;
