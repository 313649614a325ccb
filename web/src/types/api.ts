/** Shapes the API serves (docs/api.md). */

export interface Quota {
  plan_name: string;
  daily_limit: number | null;
  monthly_limit: number | null;
  lifetime_limit: number | null;
  daily_used: number;
  monthly_used: number;
  lifetime_used: number;
  can_analyze?: boolean;
}

export interface User {
  id: string;
  email: string;
  full_name: string | null;
  is_admin: boolean;
  last_login_at: string | null;
  created_at: string;
  /** Whether the address was confirmed with the link mailed at registration (issue 29). */
  email_verified?: boolean;
  quota?: Quota;
}

export type JobStatus = 'queued' | 'running' | 'done' | 'error' | 'cancelled';
export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'done', 'error', 'cancelled'];
export const TERMINAL_STATUSES: ReadonlySet<JobStatus> = new Set(['done', 'error', 'cancelled']);

export interface JobListItem {
  job_id: string;
  status: JobStatus;
  created_at: string;
  input_filename: string | null;
  model_used: string | null;
  estimated_cost: number | null;
  currency: string | null;
  error: string | null;
  /** "auto" until classified, then the task's slug; with its name in the reader's language once known. */
  job_type?: string | null;
  job_display_name?: string | null;
  user_email?: string | null;
  user_full_name?: string | null;
  /** Where and by whom it was recorded, and its work order (issue 28). */
  site_id?: string | null;
  site_name?: string | null;
  crew_id?: string | null;
  crew_name?: string | null;
  work_order?: string | null;
  /** The video's length once the analysis opened it, and how long the analysis took (issue 40). */
  video_duration_sec?: number | null;
  processing_sec?: number | null;
  has_violations?: boolean | null;
  /** The finished job's violations as reviewed (issue 53); null until done. */
  violation_count?: number | null;
}

export interface LogEntry {
  event: string;
  timestamp: string;
  data?: Record<string, unknown> | null;
}

export interface TokenUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  estimated_cost: number | null;
  currency?: string | null;
}

export interface Evidence {
  code: string;
  name: string;
  composite_index: number;
  frame_time_sec: number | null;
  image_url: string;
}

export interface JobResult {
  job_type: string;
  job_display_name: string | null;
  required_groups: string[][];
  required_groups_name: string[];
  missing_groups: string[][];
  missing_groups_name: string[];
  /** Every required group is in exactly one of satisfied_groups, missing_groups and not_checked. */
  satisfied_groups?: string[][];
  satisfied_equipment: string[];
  satisfied_equipment_name: string[];
  /** Groups the analyzer that ran cannot judge (the offline one checks hard hats and hi-vis only). */
  not_checked?: string[][];
  not_checked_name?: string[];
  /** Of not_checked, the groups the analyzer checks but no worker could be judged for. */
  not_judged?: string[][];
  not_judged_name?: string[];
  /** Workers seen in the sampled frames (null: the analyzer did not say). */
  workers_seen?: number | null;
  /** No sampled frame showed a worker: nothing judged, nothing missing. */
  no_worker_seen?: boolean;
  /** A note for the reader in their language (e.g. "No worker seen — nothing to judge"). */
  note?: string;
  composites_processed: number;
  model_used: string | null;
  token_usage?: TokenUsage | null;
  evidence?: Evidence[];
  duration_seconds?: number | null;
  /** manual: chosen by the user; model: recognised by the vision model; fallback: not recognised, general rules applied. */
  job_type_source?: 'manual' | 'model' | 'fallback';
  job_type_confidence?: number | null;
  /**
   * Each worker seen without a required group's equipment: one item per worker and group, decided
   * from the worker's whole track (issue 51; older results: one item per run of sampled frames).
   */
  violations?: Violation[];
  /** Every worker followed through the video, with a verdict per judged group (absent in results stored before issue 51). */
  workers?: WorkerReport[];
  /** Each missing group with the violation that proves it, or null when no sampled frame showed the item. */
  missing_evidence?: MissingEvidence[];
  /** Present once reviewed: the violations that count. */
  violation_count?: number;
}

export interface Violation {
  group: string[];
  group_name: string;
  /** 1-based number of the worker over the whole video, in order of first appearance. */
  worker: number;
  /**
   * When the worker was first seen: the start of the worker's track (issue 51). In results stored
   * before evidence_sec existed: the first frame that showed the worker without it (the evidence).
   */
  time_sec: number;
  /** When the worker was last seen: the end of the track (older results: the last frame of the run; absent before workers were followed across frames). */
  end_sec?: number;
  /** Sampled frames of the track that showed the worker without it (older results: frames of the run). */
  frames?: number;
  /** Time of the evidence frame: the clearest frame of the track without it (absent in results stored before issue 51). */
  evidence_sec?: number;
  /** How sure the verdict is, 0..1 (absent in results stored before issue 51). */
  confidence?: number;
  /** 0..1 of the evidence frame. */
  box: { x: number; y: number; w: number; h: number };
  /** The worker cropped out of the frame (GET with the bearer token); null for a violation added by a reviewer (no crop). */
  image_url: string | null;
  /** A reviewer said the item was worn or the person is no worker: kept, counted nowhere (issue 53). */
  dismissed?: boolean;
  /** Not found by the model: a reviewer said the item was missing. */
  added_by_review?: boolean;
  reviewed_verdict?: ReviewedVerdict;
  review?: Review | null;
  /** What the worker had instead, when the analyzer can tell (a cap or hat, a bare head). */
  reason?: 'other_headgear' | 'bare_head' | null;
  reason_name?: string | null;
}

/** A worker's verdict on one group over the whole track: cannot_tell = seen too briefly, too small or too unclear to decide (never a violation). */
export type ItemVerdict = 'worn' | 'missing' | 'cannot_tell';

/** What a reviewer says of a finding: the model was right, or what is true (issue 53). */
export type ReviewVerdict = 'confirmed' | 'worn' | 'missing' | 'not_a_worker';
/** The verdict that counts: the reviewer's, or the model's when confirmed or not reviewed. */
export type ReviewedVerdict = ItemVerdict | 'not_a_worker';

/** The review standing for a finding (the latest). */
export interface Review {
  verdict: ReviewVerdict;
  by: string;
  /** Null once the reviewer's account is erased. */
  by_name: string | null;
  at: string;
  note: string | null;
}

export interface WorkerItem {
  verdict: ItemVerdict;
  frames_worn: number;
  frames_without: number;
  confidence: number | null;
  /** Present once the job has any review (null review: this finding is not reviewed). */
  reviewed_verdict?: ReviewedVerdict;
  review?: Review | null;
}

/** One worker followed through the video (issue 51). */
export interface WorkerReport {
  /** 1-based, in order of first appearance (the same number as in violations). */
  worker: number;
  first_sec: number;
  last_sec: number;
  /** Sampled frames that showed the worker. */
  frames: number;
  /** By required group, its codes joined by commas ("pic7,pic8"). */
  items: Record<string, WorkerItem>;
}

export interface MissingEvidence {
  group: string[];
  violation: number | null;
  image_url: string | null;
}

export interface JobDetail extends JobListItem {
  logs: LogEntry[];
  result: JobResult | null;
  /** Whether the reader may review the findings (a manager of the job's organisation who did not record it, a personal job's owner). */
  may_review?: boolean;
}

export interface Task {
  slug: string;
  name: string;
}

export interface ApiKey {
  id: string;
  name: string;
  token_prefix: string;
  created_at: string;
  last_used_at: string | null;
}

export interface NewApiKey extends ApiKey {
  token: string;
}

export interface UsageUser {
  user_id: string;
  email: string;
  full_name: string | null;
  job_count: number;
  total_prompt_tokens: number;
  total_completion_tokens: number;
  total_cost: number;
}

export interface UsageSummary {
  total_prompt_tokens: number;
  total_completion_tokens: number;
  total_cost: number;
  currency: string;
  users: UsageUser[];
}

export interface UserQuotaRow {
  user_id: string;
  email: string;
  full_name: string | null;
  quota: Quota;
}

export interface QuotaUpdate {
  plan_name?: string | null;
  daily_limit?: number | null;
  monthly_limit?: number | null;
  lifetime_limit?: number | null;
}

export interface LoginResponse {
  access_token: string;
  token_type?: string;
  expires_in?: number;
}

export type OrgRole = 'manager' | 'member';

/** An organisation as its member sees it (GET /orgs/current). */
export interface Org {
  id: string;
  name: string;
  role: OrgRole;
  created_at: string;
  member_count: number;
  quota: Quota;
}

export interface OrgMember {
  user_id: string;
  email: string;
  full_name: string | null;
  role: OrgRole;
  joined_at: string;
}

/** One entry of the audit log (issue 30). */
export interface AuditEntry {
  id: string;
  at: string;
  action: string;
  outcome: 'success' | 'failure';
  actor_id: string | null;
  actor_email: string | null;
  org_id: string | null;
  object_type: 'job' | 'org' | 'user' | 'setting' | 'quota';
  object_id: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, string>;
}

export interface AuditPage {
  entries: AuditEntry[];
  next_cursor: string | null;
}

export interface PendingInvite {
  invite_id: string;
  email: string;
  role: OrgRole;
  created_at: string;
  expires_at: string;
}

export interface CreatedInvite extends PendingInvite {
  token: string;
  /** The invitation page, relative to the app's address. */
  url: string;
}

/** A site or a crew of an organisation. */
export interface OrgUnit {
  id: string;
  name: string;
  city: string | null;
  archived: boolean;
  created_at: string;
}

/** One row of the compliance report: defined once, in the platform's contract (a type only). */
export type { ComplianceRow } from '../../../services/platform/src/contracts/compliance';
import type { ComplianceRow } from '../../../services/platform/src/contracts/compliance';

export interface LatestViolation {
  job_id: string;
  created_at: string;
  site_id: string | null;
  site_name: string | null;
  crew_id: string | null;
  crew_name: string | null;
  group: string;
  group_name: string;
  time_sec: number;
  image_url: string;
}

export interface ComplianceReport {
  from: string;
  to: string;
  by: 'site' | 'crew' | 'job_type';
  interval: 'day' | 'week' | 'month';
  rows: ComplianceRow[];
  groups: Record<string, string>;
  latest_violations: LatestViolation[];
}
