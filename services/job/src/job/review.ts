import { ForbiddenError, type AuditSource, type Principal } from '@baret/platform';
import type { JobDoc } from '../readModels/jobs.js';
import type { JobDeps } from './deps.js';
import { currentReviews, type FindingReviewedData, type ReviewVerdict } from './findings.js';
import { reviewView, type ReviewView } from './reviewedResult.js';
import { runJob } from './run.js';
import { visibleJob } from './visibleJob.js';

export const ONLY_ORG_MANAGERS_REVIEW = 'Only the managers of the job’s organisation can review its findings.';
export const ONLY_OWNER_REVIEWS = 'Only the owner of a personal job can review its findings.';

/**
 * Who may review a job's findings (issue 53, docs/adr/0033): for a job of an organisation, its
 * managers (never the person who recorded it: the decider refuses them); for a personal job, its
 * owner. Not an admin as such: a review is the customer's safety sign-off that an auditor reads,
 * and Baret's own administrators support, they do not sign. A crew member (role member) does not review.
 */
export function mayReview(principal: Principal, job: Pick<JobDoc, 'org_id' | 'user_id'>): void {
  if (job.org_id) {
    if (principal.orgId !== job.org_id || principal.orgRole !== 'manager') throw new ForbiddenError(ONLY_ORG_MANAGERS_REVIEW);
    return;
  }
  if (principal.userId !== job.user_id) throw new ForbiddenError(ONLY_OWNER_REVIEWS);
}

/**
 * Whether the reader may review this job's findings now (served as `may_review` on the job's page,
 * so the web shows review controls only to them; the POST decides anyway): a done job, signed in
 * (not an API key), a manager of its organisation who did not record it, or a personal job's owner.
 */
export function mayReviewNow(principal: Principal, job: Pick<JobDoc, 'org_id' | 'user_id' | 'status'>): boolean {
  if (job.status !== 'done' || principal.via !== 'jwt') return false;
  if (job.org_id) return principal.orgId === job.org_id && principal.orgRole === 'manager' && principal.userId !== job.user_id;
  return principal.userId === job.user_id;
}

export interface ReviewInput {
  worker: number;
  group: string;
  verdict: ReviewVerdict;
  note?: string | null;
}

/** One review as the review routes list it. */
export type ReviewEntry = { worker: number; group: string; model_verdict: FindingReviewedData['model_verdict'] } & ReviewView;

/** A job's reviews: those standing (one per finding), and every one in order (the history). */
export function reviewsOf(job: JobDoc) {
  const entry = (r: FindingReviewedData): ReviewEntry => ({ worker: r.worker, group: r.group, model_verdict: r.model_verdict, ...reviewView(r)! });
  const history = job.logs.filter((l) => l.event === 'finding_reviewed' && l.data);
  return {
    job_id: job.id,
    violation_count: job.violation_count ?? (Array.isArray(job.result?.violations) ? job.result.violations.length : 0),
    reviews: currentReviews(job.reviews ?? []).map(entry),
    history: history.map(({ data: d = {}, timestamp }) => ({
      worker: Number(d.worker),
      group: String(d.group),
      model_verdict: d.model_verdict as ReviewEntry['model_verdict'],
      verdict: d.verdict as ReviewVerdict,
      by: String(d.reviewer_id),
      by_name: typeof d.reviewer_name === 'string' ? d.reviewer_name : null,
      at: typeof d.at === 'string' ? d.at : timestamp,
      note: typeof d.note === 'string' ? d.note : null,
    })),
  };
}

/**
 * A reviewer's verdict on one finding of a done job: who may is checked here, what the job allows
 * by its decider; the review is recorded in the job's stream (its timeline) and, once, in the audit
 * log. The same review sent twice records one event (and one entry).
 */
export async function review(deps: JobDeps, principal: Principal, jobId: string, input: ReviewInput, from: AuditSource = {}) {
  const job = await visibleJob(deps, principal, jobId);
  mayReview(principal, job);
  const note = input.note?.trim() || null;
  const result = await runJob(deps, jobId, {
    type: 'review_finding',
    data: {
      worker: input.worker,
      group: input.group,
      verdict: input.verdict,
      note,
      reviewer: { id: principal.userId, email: principal.email, name: principal.fullName ?? null },
      now: deps.clock(),
    },
  });
  const made = result.recorded.find((e) => e.type === 'finding_reviewed');
  if (made) {
    const d = made.data as FindingReviewedData;
    await deps.audit.record({
      action: 'job.finding_reviewed',
      actorId: principal.userId,
      orgId: job.org_id ?? null,
      objectType: 'job',
      objectId: jobId,
      ip: from.ip,
      userAgent: from.userAgent,
      details: {
        worker: String(d.worker),
        group: d.group,
        model_verdict: d.model_verdict,
        verdict: d.verdict,
        violation_count: String(d.violation_count),
        ...(job.user_id !== principal.userId ? { owner: job.user_id } : {}),
      },
      key: made.id,
    });
  }
  return reviewsOf((await deps.jobs.get(jobId)) ?? job);
}
