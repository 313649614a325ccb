/**
 * The findings of a job's result and what a review makes of them (issue 53, docs/adr/0033). Pure:
 * the decider, the read models, the job page, the CSV and the PDF all count through these
 * functions, so a rebuild from the events gives the same figures as the live projection.
 *
 * A finding is one worker and one required group (its codes joined by commas, as in
 * `workers[].items`): the model's verdict (`worn`, `missing`, `cannot_tell`), and the violations
 * the result lists for it. A review says the model was right (`confirmed`) or what is true (`worn`,
 * `missing`, `not_a_worker`); the latest review of a finding stands, the earlier ones stay in the
 * job's stream (its history). What counts is the reviewed verdict:
 * - a violation whose finding is reviewed `worn` or `not_a_worker` is dismissed: kept in the JSON
 *   (`dismissed: true`), left out of every figure;
 * - a finding the model did not list as a violation (worn, cannot tell) that a reviewer marks
 *   `missing` is a violation added by review (`added_by_review: true`), counted like the others.
 */

export const REVIEW_VERDICTS = ['confirmed', 'worn', 'missing', 'not_a_worker'] as const;
/** What a reviewer says: the model was right, or what is true. */
export type ReviewVerdict = (typeof REVIEW_VERDICTS)[number];
export type ModelVerdict = 'worn' | 'missing' | 'cannot_tell';
/** The verdict that counts once reviewed. */
export type ReviewedVerdict = ModelVerdict | 'not_a_worker';

/** A review note's longest length. */
export const NOTE_MAX = 500;

/** The data of `finding_reviewed`, one event in the job's stream per review (a later one of the same finding supersedes it). */
export interface FindingReviewedData {
  job_id: string;
  /** The job's owner, file and organisation: what a subscriber of the bus needs without the job's other events. */
  user_id: string;
  input_filename?: string;
  org_id?: string;
  worker: number;
  /** The group key: its codes joined by commas ("pic1,pic2,pic3"). */
  group: string;
  model_verdict: ModelVerdict;
  verdict: ReviewVerdict;
  reviewer_id: string;
  /** Sealed with the reviewer's key (docs/adr/0025): null once their account is erased. */
  reviewer_email: string | null;
  reviewer_name: string | null;
  at: string;
  note?: string | null;
  /** The job's violations as counted after this review, and before it. */
  violation_count: number;
  previous_violation_count: number;
}

export const findingKey = (worker: number, group: string): string => `${worker}|${group}`;
export const groupKeyOf = (group: readonly string[]): string => group.join(',');

/** One finding of the model: its verdict, and how many of the result's violations are about it. */
export interface ModelFinding {
  worker: number;
  group: string;
  verdict: ModelVerdict;
  violations: number;
}

interface StoredWorker {
  worker?: number;
  first_sec?: number;
  last_sec?: number;
  items?: Record<string, { verdict?: string; frames_without?: number; confidence?: number | null }>;
}
interface StoredViolation {
  group?: string[];
  worker?: number;
}

const workersOf = (result: Record<string, unknown>): StoredWorker[] => (Array.isArray(result.workers) ? (result.workers as StoredWorker[]) : []);
const violationsOf = (result: Record<string, unknown>): StoredViolation[] => (Array.isArray(result.violations) ? (result.violations as StoredViolation[]) : []);
const isModelVerdict = (v: unknown): v is ModelVerdict => v === 'worn' || v === 'missing' || v === 'cannot_tell';

/**
 * The findings of a result by key: every worker's item, and every violation (a vision model's
 * result may list violations without workers' items: their verdict is `missing`).
 */
export function modelFindings(result: Record<string, unknown> | null | undefined): Record<string, ModelFinding> {
  const findings: Record<string, ModelFinding> = {};
  if (!result) return findings;
  for (const w of workersOf(result)) {
    if (typeof w.worker !== 'number') continue;
    for (const [group, item] of Object.entries(w.items ?? {})) {
      if (isModelVerdict(item?.verdict)) findings[findingKey(w.worker, group)] = { worker: w.worker, group, verdict: item.verdict, violations: 0 };
    }
  }
  for (const v of violationsOf(result)) {
    if (typeof v.worker !== 'number') continue;
    const group = groupKeyOf(v.group ?? []);
    const key = findingKey(v.worker, group);
    const f = findings[key] ?? { worker: v.worker, group, verdict: 'missing' as const, violations: 0 };
    findings[key] = { ...f, violations: f.violations + 1 };
  }
  return findings;
}

export const reviewedVerdict = (model: ModelVerdict, verdict: ReviewVerdict | undefined): ReviewedVerdict => (verdict === undefined || verdict === 'confirmed' ? model : verdict);
/** Whether a reviewed verdict takes a violation out of the figures. */
export const dismisses = (v: ReviewedVerdict): boolean => v === 'worn' || v === 'not_a_worker';
/** Whether a reviewed finding is a violation the model did not list (added by the reviewer). */
export const addsViolation = (f: ModelFinding, verdict: ReviewVerdict | undefined): boolean =>
  f.violations === 0 && f.verdict !== 'missing' && reviewedVerdict(f.verdict, verdict) === 'missing';

/** The violations that count: the model's not dismissed, plus those added by review. */
export function countViolations(findings: Record<string, ModelFinding>, reviews: Record<string, { verdict: ReviewVerdict } | undefined>, modelTotal?: number): number {
  let n = modelTotal ?? Object.values(findings).reduce((s, f) => s + f.violations, 0);
  for (const [key, f] of Object.entries(findings)) {
    const verdict = reviews[key]?.verdict;
    if (verdict === undefined) continue;
    if (f.violations > 0 && dismisses(reviewedVerdict(f.verdict, verdict))) n -= f.violations;
    if (addsViolation(f, verdict)) n += 1;
  }
  return n;
}

/** The review that stands for each finding (the latest), in the order the findings were first reviewed. */
export function currentReviews(reviews: readonly FindingReviewedData[]): FindingReviewedData[] {
  const byKey = new Map<string, FindingReviewedData>();
  for (const r of reviews) byKey.set(findingKey(r.worker, r.group), r);
  return [...byKey.values()];
}

export const reviewsByKey = (reviews: readonly FindingReviewedData[]): Record<string, FindingReviewedData> =>
  Object.fromEntries(currentReviews(reviews).map((r) => [findingKey(r.worker, r.group), r]));

/** The violations of a result as they count once reviewed (the model's not dismissed, and the added ones), with their group keys. */
export function countedViolations(result: Record<string, unknown>, reviews: readonly FindingReviewedData[]): Array<{ group: string; worker: number; n: number | null; time_sec: number }> {
  const byKey = reviewsByKey(reviews);
  const findings = modelFindings(result);
  const counted: Array<{ group: string; worker: number; n: number | null; time_sec: number }> = [];
  violationsOf(result).forEach((v, n) => {
    const group = groupKeyOf(v.group ?? []);
    const f = typeof v.worker === 'number' ? findings[findingKey(v.worker, group)] : undefined;
    if (f && dismisses(reviewedVerdict(f.verdict, byKey[findingKey(f.worker, group)]?.verdict))) return;
    counted.push({ group, worker: Number(v.worker ?? 0), n, time_sec: Number((v as { time_sec?: number }).time_sec ?? 0) });
  });
  for (const r of currentReviews(reviews)) {
    const f = findings[findingKey(r.worker, r.group)];
    if (f && addsViolation(f, r.verdict)) counted.push({ group: r.group, worker: r.worker, n: null, time_sec: workerOf(result, r.worker)?.first_sec ?? 0 });
  }
  return counted;
}

/**
 * The findings a reviewer still has to look at (issue 53: the team's queue): a violation the model
 * listed, or a "cannot tell", that no review stands for. A worn item nobody doubted is not counted.
 */
export function findingsToReview(result: Record<string, unknown> | null | undefined, reviews: readonly FindingReviewedData[] = []): number {
  const byKey = reviewsByKey(reviews);
  return Object.entries(modelFindings(result)).filter(([key, f]) => (f.violations > 0 || f.verdict === 'cannot_tell') && !byKey[key]).length;
}

export const workerOf = (result: Record<string, unknown>, worker: number): StoredWorker | undefined => workersOf(result).find((w) => w.worker === worker);

/**
 * Workers every reviewed item of which says "not a worker" (a reflection, a passer-by): they leave
 * the count of workers seen.
 */
export function notWorkers(result: Record<string, unknown>, reviews: readonly FindingReviewedData[]): number {
  const byKey = reviewsByKey(reviews);
  return workersOf(result).filter((w) => {
    const groups = Object.keys(w.items ?? {});
    return typeof w.worker === 'number' && groups.length > 0 && groups.every((g) => byKey[findingKey(w.worker!, g)]?.verdict === 'not_a_worker');
  }).length;
}
