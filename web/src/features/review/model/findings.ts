import type { ItemVerdict, JobResult, Review, ReviewedVerdict, ReviewVerdict } from '@/types/api';

/** What kind of item a finding is about: the words of its choices ("hard hat worn", "no vest"). */
export type ItemKind = 'hat' | 'vest' | 'other';

/**
 * One finding to review (issue 53, docs/adr/0033): one worker and one required group of the result,
 * with the model's verdict, how sure it was, the crop of its violation (when the model listed one)
 * and the review standing for it.
 */
export interface Finding {
  /** `${worker}|${group}`, as the server keys findings. */
  key: string;
  worker: number;
  /** The group key: its codes joined by commas, as in `workers[].items`. */
  group: string;
  groupName: string;
  kind: ItemKind;
  verdict: ItemVerdict;
  reviewedVerdict: ReviewedVerdict;
  /** 0..1, null when the analyzer did not say. */
  confidence: number | null;
  review: Review | null;
  /** The model's violation crop (GET with the bearer token), null when there is none. */
  imageUrl: string | null;
  firstSec: number | null;
  lastSec: number | null;
}

/** The choices, in the order of their keys 1–4. */
export const CHOICES: readonly ReviewVerdict[] = ['confirmed', 'worn', 'missing', 'not_a_worker'];

const HAT_CODES = new Set(['pic1', 'pic2', 'pic3']);
const VEST_CODES = new Set(['pic23', 'pic24']);

export function itemKind(group: string): ItemKind {
  const codes = group.split(',');
  if (codes.some((c) => HAT_CODES.has(c))) return 'hat';
  if (codes.some((c) => VEST_CODES.has(c))) return 'vest';
  return 'other';
}

const sameGroup = (a: readonly string[], key: string) => [...a].sort().join(',') === key.split(',').sort().join(',');

/** How sure the model was: a "cannot tell" and an unknown confidence count as not sure at all. */
const sureness = (f: Finding) => (f.verdict === 'cannot_tell' ? 0 : (f.confidence ?? 0));

/**
 * Every finding of a result, the least sure first ("cannot tell" included), then by worker and by
 * the order of the required groups. Workers' items first; a violation listed without its worker's
 * item (a vision model's) is a finding too. Violations added by a reviewer are not: their finding is
 * the worker's item they came from.
 */
export function reviewFindings(result: JobResult): Finding[] {
  const required = result.required_groups ?? [];
  const violations = result.violations ?? [];
  const groupIndex = (key: string) => {
    const i = required.findIndex((g) => sameGroup(g, key));
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  const nameOf = (key: string) => {
    const i = groupIndex(key);
    return (i < required.length ? result.required_groups_name?.[i] : undefined) ?? violations.find((v) => v.group.join(',') === key)?.group_name ?? key.split(',').join(' / ');
  };
  const modelViolation = (worker: number, key: string) => violations.find((v) => !v.added_by_review && v.worker === worker && v.group.join(',') === key);
  const findings: Finding[] = [];
  for (const w of result.workers ?? []) {
    for (const [group, item] of Object.entries(w.items)) {
      const violation = modelViolation(w.worker, group);
      findings.push({
        key: `${w.worker}|${group}`,
        worker: w.worker,
        group,
        groupName: nameOf(group),
        kind: itemKind(group),
        verdict: item.verdict,
        reviewedVerdict: item.reviewed_verdict ?? item.verdict,
        confidence: item.confidence ?? violation?.confidence ?? null,
        review: item.review ?? null,
        imageUrl: violation?.image_url ?? null,
        firstSec: w.first_sec,
        lastSec: w.last_sec,
      });
    }
  }
  const seen = new Set(findings.map((f) => f.key));
  for (const v of violations) {
    const group = v.group.join(',');
    const key = `${v.worker}|${group}`;
    if (v.added_by_review || seen.has(key)) continue;
    seen.add(key);
    findings.push({
      key,
      worker: v.worker,
      group,
      groupName: v.group_name,
      kind: itemKind(group),
      verdict: 'missing',
      reviewedVerdict: v.reviewed_verdict ?? 'missing',
      confidence: v.confidence ?? null,
      review: v.review ?? null,
      imageUrl: v.image_url,
      firstSec: v.time_sec,
      lastSec: v.end_sec ?? v.time_sec,
    });
  }
  return findings.sort((a, b) => sureness(a) - sureness(b) || a.worker - b.worker || groupIndex(a.group) - groupIndex(b.group));
}

/** The groups of a worker's findings: "not a worker" is sent for each of them (one review per item). */
export const workerGroups = (findings: readonly Finding[], worker: number): string[] => findings.filter((f) => f.worker === worker).map((f) => f.group);
