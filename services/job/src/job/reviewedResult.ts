import type { Lang } from '@baret/platform';
import {
  addsViolation,
  countViolations,
  dismisses,
  findingKey,
  groupKeyOf,
  modelFindings,
  notWorkers,
  reviewedVerdict,
  reviewsByKey,
  workerOf,
  type FindingReviewedData,
  type ModelFinding,
} from './findings.js';

/** A review as the result shows it, beside the model's verdict. */
export interface ReviewView {
  verdict: FindingReviewedData['verdict'];
  by: string;
  by_name: string | null;
  at: string;
  note: string | null;
}

export const reviewView = (r: FindingReviewedData | undefined): ReviewView | null =>
  r ? { verdict: r.verdict, by: r.reviewer_id, by_name: r.reviewer_name ?? r.reviewer_email ?? null, at: r.at, note: r.note ?? null } : null;

type Names = Record<string, unknown> & { required_groups_name?: string[]; missing_groups_name?: string[]; satisfied_equipment_name?: string[]; violation_group_names?: string[]; violation_reasons?: Array<string | null> };
type Result = Record<string, unknown> & { names?: Partial<Record<Lang, Names>> };
type Violation = Record<string, unknown> & { group?: string[]; worker?: number };

const LANGS: readonly Lang[] = ['tr', 'en'];
const groupsOf = (v: unknown): string[][] => (Array.isArray(v) ? (v as string[][]) : []);

/** A group's name in a language: from the required groups' names, else from a violation of the group, else its codes. */
function groupName(result: Result, key: string, lang: Lang): string {
  const names = result.names?.[lang];
  const required = groupsOf(result.required_groups).findIndex((g) => groupKeyOf(g) === key);
  const fromRequired = required >= 0 ? names?.required_groups_name?.[required] : undefined;
  if (fromRequired) return fromRequired;
  const violation = (Array.isArray(result.violations) ? (result.violations as Violation[]) : []).findIndex((v) => groupKeyOf(v.group ?? []) === key);
  return (violation >= 0 ? names?.violation_group_names?.[violation] : undefined) ?? key;
}

/**
 * Required groups the reviews cleared: the model called them missing (so it listed none of their
 * equipment as seen), no violation of them counts any more, and a worker was seen wearing them (by the
 * model, or by a reviewer's "worn"). They join the equipment seen worn, as their first code, the way
 * the analyzer names a satisfied group (result.ts), so "seen worn" agrees with "required: present".
 */
function clearedGroups(required: string[][], missingKeys: ReadonlySet<string>, satisfied: readonly string[], findings: readonly ModelFinding[], verdictOf: (f: ModelFinding) => string | null): string[][] {
  return required.filter(
    (g) => g.length > 0 && !missingKeys.has(groupKeyOf(g)) && !g.some((c) => satisfied.includes(c)) && findings.some((f) => f.group === groupKeyOf(g) && verdictOf(f) === 'worn'),
  );
}

/** The title of a group's first code: its name up to the analyzer's separator (" / ", catalog.ts groupName). */
function firstTitle(result: Result, group: string[], lang: Lang): string {
  return groupName(result, groupKeyOf(group), lang).split(' / ')[0]!;
}

/** The violation a reviewer added: the worker's track, no evidence frame (the web shows the worker's own frames). */
function addedViolation(result: Result, r: FindingReviewedData) {
  const w = workerOf(result, r.worker);
  const frames = w?.items?.[r.group]?.frames_without;
  return {
    group: r.group.split(','),
    worker: r.worker,
    time_sec: w?.first_sec ?? 0,
    end_sec: w?.last_sec ?? w?.first_sec ?? 0,
    ...(typeof frames === 'number' && frames > 0 ? { frames } : {}),
    reason: null,
    added_by_review: true,
    dismissed: false,
    reviewed_verdict: 'missing',
    review: reviewView(r),
  };
}

/**
 * The stored result as it counts once reviewed (issue 53). Without a review it is returned as it
 * is, so results before reviews are served exactly as before. With one, it keeps both: every
 * worker's item and every violation keeps the model's verdict and gets `reviewed_verdict` and
 * `review` (null: not reviewed); dismissed violations stay with `dismissed: true`; violations added
 * by review are appended (`added_by_review: true`, so the model's keep their index and crop);
 * `missing_groups`, `satisfied_equipment`, `missing_evidence`, `workers_seen` and their names follow
 * the reviewed verdict, and `model_summary` keeps what the model said of them.
 */
export function reviewedResult<R extends Record<string, unknown>>(stored: R, reviews: readonly FindingReviewedData[] | undefined): R {
  if (!reviews || reviews.length === 0) return stored;
  const result = stored as Result;
  const byKey = reviewsByKey(reviews);
  const findings = modelFindings(result);
  const verdictOf = (f: ModelFinding | undefined) => (f ? reviewedVerdict(f.verdict, byKey[findingKey(f.worker, f.group)]?.verdict) : null);
  const modelViolations = Array.isArray(result.violations) ? (result.violations as Violation[]) : [];
  const violations = [
    ...modelViolations.map((v) => {
      const f = typeof v.worker === 'number' ? findings[findingKey(v.worker, groupKeyOf(v.group ?? []))] : undefined;
      const verdict = verdictOf(f) ?? 'missing';
      return { ...v, added_by_review: false, dismissed: dismisses(verdict), reviewed_verdict: verdict, review: reviewView(f && byKey[findingKey(f.worker, f.group)]) };
    }),
    ...Object.values(byKey)
      .filter((r) => findings[findingKey(r.worker, r.group)] && addsViolation(findings[findingKey(r.worker, r.group)]!, r.verdict))
      .map((r) => addedViolation(result, r)),
  ];
  const counted = violations.filter((v) => !v.dismissed);
  const countedGroups = new Set(counted.map((v) => groupKeyOf(v.group ?? [])));
  const violatedByModel = new Set(modelViolations.map((v) => groupKeyOf(v.group ?? [])));
  const required = groupsOf(result.required_groups);
  const modelMissing = groupsOf(result.missing_groups);
  // Missing: a group with a violation that counts, or one the model said was missing without listing a violation of it.
  const missing = required.filter((g) => countedGroups.has(groupKeyOf(g)) || (!violatedByModel.has(groupKeyOf(g)) && modelMissing.some((m) => groupKeyOf(m) === groupKeyOf(g))));
  const missingKeys = new Set(missing.map(groupKeyOf));
  const satisfied = Array.isArray(result.satisfied_equipment) ? (result.satisfied_equipment as string[]) : [];
  const keepSatisfied = satisfied.map((code) => !required.some((g) => g.includes(code) && missingKeys.has(groupKeyOf(g))));
  const cleared = clearedGroups(required, missingKeys, satisfied, Object.values(findings), verdictOf);
  const names = Object.fromEntries(
    LANGS.flatMap((lang) => {
      const n = result.names?.[lang];
      if (!n) return [];
      return [
        [
          lang,
          {
            ...n,
            missing_groups_name: missing.map((g) => groupName(result, groupKeyOf(g), lang)),
            satisfied_equipment_name: [...(n.satisfied_equipment_name ?? []).filter((_x, i) => keepSatisfied[i] !== false), ...cleared.map((g) => firstTitle(result, g, lang))],
            violation_group_names: violations.map((v, i) => n.violation_group_names?.[i] ?? groupName(result, groupKeyOf(v.group ?? []), lang)),
            violation_reasons: violations.map((_v, i) => n.violation_reasons?.[i] ?? null),
          },
        ],
      ];
    }),
  );
  const workers = Array.isArray(result.workers)
    ? (result.workers as Array<{ worker: number; items?: Record<string, Record<string, unknown>> }>).map((w) => ({
        ...w,
        items: Object.fromEntries(
          Object.entries(w.items ?? {}).map(([group, item]) => {
            const f = findings[findingKey(w.worker, group)];
            return [group, { ...item, reviewed_verdict: verdictOf(f) ?? item.verdict, review: reviewView(byKey[findingKey(w.worker, group)]) }];
          }),
        ),
      }))
    : result.workers;
  const modelCount = modelViolations.length;
  return {
    ...stored,
    ...(typeof result.workers_seen === 'number' ? { workers_seen: Math.max(0, result.workers_seen - notWorkers(result, reviews)) } : {}),
    missing_groups: missing,
    satisfied_equipment: [...satisfied.filter((_c, i) => keepSatisfied[i]), ...cleared.map((g) => g[0]!)],
    violations,
    ...(workers ? { workers } : {}),
    missing_evidence: missing.map((g) => {
      const at = violations.findIndex((v) => !v.dismissed && groupKeyOf(v.group ?? []) === groupKeyOf(g));
      return { group: g, violation: at >= 0 ? at : null };
    }),
    violation_count: countViolations(findings, byKey, modelCount),
    model_summary: {
      missing_groups: result.missing_groups ?? [],
      satisfied_equipment: result.satisfied_equipment ?? [],
      violation_count: modelCount,
      ...(typeof result.workers_seen === 'number' ? { workers_seen: result.workers_seen } : {}),
    },
    names,
  } as R;
}
