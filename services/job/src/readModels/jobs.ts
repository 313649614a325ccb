import { foldStreamInto, type DocumentStore, type Lang, type Projection, type RecordedEvent, type StreamReader } from '@baret/platform';
import { currentReviews, findingsToReview, type FindingReviewedData } from '../job/findings.js';
import type { AnalysisParams, JobEvent, JobStatus } from '../job/job.js';

export interface LogEntry {
  event: string;
  timestamp: string;
  data?: Record<string, unknown>;
}

/** The result as the analysis reports it: language-neutral fields plus the names in both languages. */
export interface StoredResult extends Record<string, unknown> {
  names?: Partial<Record<Lang, Record<string, unknown>>>;
}

export interface JobDoc extends Record<string, unknown> {
  id: string;
  revision: number;
  user_id: string;
  user_email: string;
  user_full_name: string | null;
  status: JobStatus;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  input_filename: string;
  video_key: string;
  params: AnalysisParams;
  model_used: string | null;
  estimated_cost: number | null;
  currency: string;
  prompt_tokens: number;
  completion_tokens: number;
  error: string | null;
  cancel_requested: boolean;
  logs: LogEntry[];
  result: StoredResult | null;
  org_id: string | null;
  site_id: string | null;
  crew_id: string | null;
  work_order: string | null;
  /** Whether the finished job's result has violations; null until it is done. */
  has_violations: boolean | null;
  /** The owner erased their account (issue 30): the job stays with the organisation, anonymised. */
  owner_deleted?: boolean;
  /** The review standing for each reviewed finding (issue 53; the earlier ones are in `logs`). */
  reviews?: FindingReviewedData[];
  /** The finished job's violations as they count, reviewed (absent before issue 53: the result's). */
  violation_count?: number;
  /** The findings (violations, cannot tell) no review stands for yet: the team's review queue (absent for jobs done before it was kept). */
  to_review?: number;
  /** Whether any finding was reviewed: the jobs whose reviewers' names an erasure looks through. */
  reviewed?: boolean;
}

/** The job without the name and address of a reviewer whose account was erased (their reviews stay, by id). */
export function withoutReviewer(doc: JobDoc, userId: string): JobDoc | null {
  const theirs = (d: { reviewer_id?: unknown } | undefined) => d?.reviewer_id === userId;
  if (!doc.reviews?.some(theirs) && !doc.logs.some((l) => theirs(l.data))) return null;
  return {
    ...doc,
    reviews: doc.reviews?.map((r) => (theirs(r) ? { ...r, reviewer_email: null, reviewer_name: null } : r)),
    logs: doc.logs.map((l) => (theirs(l.data) ? { ...l, data: { ...l.data, reviewer_name: null } } : l)),
  };
}

export const JOBS = 'job_jobs';

/**
 * Whether the job's owner may still read it (issue 37): a job recorded for an organisation stays
 * with the organisation, so a member who left or was removed no longer reads it (their export lists
 * its id and dates only); a personal job is always theirs.
 */
export const ownerStillMayRead = (job: Pick<JobDoc, 'org_id'>, principal: { orgId?: string | null }): boolean => !job.org_id || job.org_id === principal.orgId;

const round6 = (n: number): number => Math.round(n * 1e6) / 1e6;

/** What a user may see of an event's data in the timeline (no storage keys, no bulky results). */
function logData(event: JobEvent): Record<string, unknown> | undefined {
  const { at: _at, user_id: _user, ...rest } = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'job_queued':
      return {
        input_filename: event.data.input_filename,
        video_size: event.data.video_size,
        params: event.data.params,
        ...(event.data.site_id ? { site_id: event.data.site_id } : {}),
        ...(event.data.crew_id ? { crew_id: event.data.crew_id } : {}),
        ...(event.data.work_order ? { work_order: event.data.work_order } : {}),
      };
    case 'job_completed':
      return undefined;
    case 'job_cancel_requested':
    case 'job_deleted':
    case 'job_purged':
      return undefined;
    case 'finding_reviewed': {
      // Who reviewed it by id and name (the address stays in the event); the job's own ids are the page's.
      const { job_id: _j, user_id: _u, input_filename: _f, org_id: _o, reviewer_email: _e, ...review } = event.data;
      return review;
    }
    default:
      return Object.keys(rest).length ? rest : undefined;
  }
}

function apply(doc: JobDoc | null, event: JobEvent, recorded: RecordedEvent): JobDoc | null {
  const timestamp = recorded.createdAt.toISOString();
  if (event.type === 'job_queued') {
    const d = event.data;
    return {
      id: d.job_id,
      revision: recorded.revision,
      user_id: d.user_id,
      // Both read as null once the owner's key is shredded (docs/adr/0025).
      user_email: d.user_email ?? '',
      user_full_name: d.user_full_name ?? null,
      ...(d.user_email === null ? { owner_deleted: true } : {}),
      status: 'queued',
      created_at: d.queued_at,
      started_at: null,
      completed_at: null,
      input_filename: d.input_filename ?? '',
      video_key: d.video_key,
      params: d.params,
      model_used: null,
      estimated_cost: null,
      currency: 'USD',
      prompt_tokens: 0,
      completion_tokens: 0,
      error: null,
      cancel_requested: false,
      logs: [{ event: 'job_queued', timestamp, data: logData(event) }],
      result: null,
      org_id: d.org_id ?? null,
      site_id: d.site_id ?? null,
      crew_id: d.crew_id ?? null,
      work_order: d.work_order ?? null,
      has_violations: null,
    };
  }
  if (!doc) return null;
  if (event.type === 'job_deleted' || event.type === 'job_purged') return null;
  const next: JobDoc = { ...doc, revision: recorded.revision, logs: [...doc.logs, { event: event.type, timestamp, ...(logData(event) ? { data: logData(event) } : {}) }] };
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'job_started':
      return { ...next, status: 'running', started_at: timestamp, error: null };
    case 'model_pricing':
      return { ...next, model_used: String(data.model ?? next.model_used ?? ''), currency: String(data.currency ?? next.currency), estimated_cost: next.estimated_cost ?? 0 };
    case 'llm_usage':
      return {
        ...next,
        prompt_tokens: next.prompt_tokens + Number(data.prompt_tokens ?? 0),
        completion_tokens: next.completion_tokens + Number(data.completion_tokens ?? 0),
        estimated_cost: round6((next.estimated_cost ?? 0) + Number(data.estimated_cost ?? 0)),
      };
    case 'job_completed':
      return {
        ...next,
        status: 'done',
        completed_at: timestamp,
        result: event.data.result as StoredResult,
        has_violations: Array.isArray(event.data.result.violations) && event.data.result.violations.length > 0,
        violation_count: Array.isArray(event.data.result.violations) ? event.data.result.violations.length : 0,
        to_review: findingsToReview(event.data.result),
      };
    case 'finding_reviewed': {
      const reviews = currentReviews([...(next.reviews ?? []), event.data]);
      return {
        ...next,
        reviewed: true,
        reviews,
        to_review: findingsToReview(next.result, reviews),
        violation_count: event.data.violation_count,
        has_violations: event.data.violation_count > 0,
      };
    }
    case 'job_failed':
      return { ...next, status: 'error', completed_at: timestamp, error: event.data.error };
    case 'job_cancel_requested':
      return { ...next, cancel_requested: true };
    case 'job_cancelled':
      return { ...next, status: 'cancelled', completed_at: timestamp, error: 'This job was stopped by an administrator.' };
    default:
      return next;
  }
}

/**
 * Applies a job event to the job's document; returns the job and the users whose jobs it
 * concerns (its owner, from the document or the event), for the read cache (jobsCache.ts).
 */
export async function applyJobEvent(recorded: RecordedEvent, documents: DocumentStore, events: StreamReader): Promise<{ jobId: string; owners: string[] }> {
  const jobId = recorded.streamId.slice('job-'.length);
  // Every document the fold went through names the owner (a job deleted meanwhile is folded from its start).
  const owners = new Set<string>();
  const { before, after } = await foldStreamInto<JobDoc>({
    collection: documents.collection<JobDoc>(JOBS),
    id: jobId,
    event: recorded,
    events,
    evolve: (doc, e) => {
      const next = apply(doc, { type: e.type, data: e.data } as JobEvent, e);
      if (next) owners.add(next.user_id);
      return next;
    },
  });
  for (const doc of [before, after]) if (doc) owners.add(doc.user_id);
  return { jobId, owners: [...owners] };
}

/** One document per job, with its timeline; a deleted job's document is removed. */
export const jobsProjection: Projection = {
  name: 'job-jobs',
  categories: ['job'],
  async apply(recorded: RecordedEvent, documents: DocumentStore, events: StreamReader) {
    await applyJobEvent(recorded, documents, events);
  },
};

export interface UsageDoc extends Record<string, unknown> {
  id: string;
  email: string;
  full_name: string | null;
  job_count: number;
  total_prompt_tokens: number;
  total_completion_tokens: number;
  total_cost: number;
  last_position: number;
}

export const USAGE = 'job_usage';

/**
 * Tokens and cost per user for the admin page. It counts every job ever started, also those
 * deleted later, so platform totals stay true. Applied in global order only (no inline use),
 * guarded by position.
 */
export const usageProjection: Projection = {
  name: 'job-usage',
  categories: ['job'],
  async apply(recorded: RecordedEvent, documents: DocumentStore) {
    if (recorded.type !== 'job_queued' && recorded.type !== 'llm_usage') return;
    const usage = documents.collection<UsageDoc>(USAGE);
    const data = recorded.data as Record<string, unknown>;
    const userId = typeof data.user_id === 'string' ? data.user_id : null;
    if (!userId) return;
    const doc =
      (await usage.get(userId)) ??
      ({ id: userId, email: '', full_name: null, job_count: 0, total_prompt_tokens: 0, total_completion_tokens: 0, total_cost: 0, last_position: 0 } satisfies UsageDoc);
    if (recorded.position <= doc.last_position) return;
    const next: UsageDoc = { ...doc, last_position: recorded.position };
    if (recorded.type === 'job_queued') {
      next.job_count += 1;
      next.email = String(data.user_email ?? doc.email);
      next.full_name = (data.user_full_name as string | null | undefined) ?? doc.full_name;
    } else {
      next.total_prompt_tokens += Number(data.prompt_tokens ?? 0);
      next.total_completion_tokens += Number(data.completion_tokens ?? 0);
      next.total_cost = round6(next.total_cost + Number(data.estimated_cost ?? 0));
    }
    await usage.put(userId, next);
  },
};
