/**
 * Reviews of findings (issue 53) on the job's decider, given / when / then, no I/O; and what the
 * reviewed verdict makes of a result (findings.ts, reviewedResult.ts).
 */
import { ForbiddenError, hasTurkish, IllegalStateError, NotFoundError } from '@baret/platform';
import { describe, expect, it } from 'vitest';
import { decideJob, NO_SUCH_FINDING, REVIEW_NOT_DONE, REVIEW_OWN_JOB, type ReviewFinding } from '../src/job/businessLogic.js';
import { ONLY_ORG_MANAGERS_REVIEW, ONLY_OWNER_REVIEWS } from '../src/job/review.js';
import { countedViolations, findingsToReview, type FindingReviewedData } from '../src/job/findings.js';
import { evolveJob, initialJobState, type JobEvent } from '../src/job/job.js';
import { reviewedResult } from '../src/job/reviewedResult.js';
import { HAT, queued, RESULT, VEST } from './fixtures/reviewResult.js';

const AT = '2026-01-02T09:00:00.000Z';
const manager = { id: 'manager-1', email: 'mudur@example.com', name: 'Mehmet Müdür' };
const history = (org: string | null = 'org-1'): JobEvent[] => [
  { type: 'job_queued', data: queued(org) },
  { type: 'job_started', data: { at: '2026-01-01T12:00:01.000Z' } },
  { type: 'job_completed', data: { at: '2026-01-01T12:01:00.000Z', result: RESULT, violation_count: 1 } },
];
const given = (events: JobEvent[]) => ({
  when: (command: ReviewFinding) => {
    const run = () => decideJob(command, events.reduce(evolveJob, initialJobState()));
    return {
      then: (expected: JobEvent[]) => expect(run()).toEqual(expected),
      thenThrows: (error: new (...a: never[]) => Error, message: RegExp) => {
        expect(run).toThrow(error);
        expect(run).toThrow(message);
      },
    };
  },
});
const review = (worker: number, group: string, verdict: ReviewFinding['data']['verdict'], reviewer = manager, note: string | null = null): ReviewFinding => ({
  type: 'review_finding',
  data: { worker, group, verdict, note, reviewer, now: new Date(AT) },
});
const reviewed = (data: Partial<FindingReviewedData> & Pick<FindingReviewedData, 'worker' | 'group' | 'model_verdict' | 'verdict' | 'violation_count' | 'previous_violation_count'>): JobEvent => ({
  type: 'finding_reviewed',
  data: { job_id: 'j1', user_id: 'crew-1', input_filename: 'direk.mp4', org_id: 'org-1', reviewer_id: manager.id, reviewer_email: manager.email, reviewer_name: manager.name, at: AT, ...data },
});
const dismissHat = reviewed({ worker: 1, group: HAT, model_verdict: 'missing', verdict: 'worn', violation_count: 0, previous_violation_count: 1 });

describe('reviewing a finding (the decider)', () => {
  it('records a dismissed false "no hard hat": the model said missing, the reviewer says worn, the violations go from 1 to 0', () => {
    given(history()).when(review(1, HAT, 'worn')).then([dismissHat]);
  });

  it('records a violation the model missed: worn → missing adds one', () => {
    given(history())
      .when(review(2, VEST, 'missing', manager, 'Yelek çıkarılmış'))
      .then([reviewed({ worker: 2, group: VEST, model_verdict: 'worn', verdict: 'missing', note: 'Yelek çıkarılmış', violation_count: 2, previous_violation_count: 1 })]);
  });

  it('records a confirmation, leaving the count as it is', () => {
    given(history()).when(review(1, HAT, 'confirmed')).then([reviewed({ worker: 1, group: HAT, model_verdict: 'missing', verdict: 'confirmed', violation_count: 1, previous_violation_count: 1 })]);
  });

  it('records a changed review as a new event (the earlier stays in the stream) counted from the review that stood', () => {
    given([...history(), dismissHat])
      .when(review(1, HAT, 'confirmed'))
      .then([reviewed({ worker: 1, group: HAT, model_verdict: 'missing', verdict: 'confirmed', violation_count: 1, previous_violation_count: 0 })]);
  });

  it('records nothing when the same verdict (and note) already stands: the same review sent twice records once', () => {
    given([...history(), dismissHat]).when(review(1, HAT, 'worn')).then([]);
  });

  it('"not a worker" dismisses the finding like "worn"', () => {
    given(history()).when(review(1, HAT, 'not_a_worker')).then([reviewed({ worker: 1, group: HAT, model_verdict: 'missing', verdict: 'not_a_worker', violation_count: 0, previous_violation_count: 1 })]);
  });

  it('refuses the person who recorded an organisation’s job: a crew member cannot clear their own violation', () => {
    given(history()).when(review(1, HAT, 'worn', { id: 'crew-1', email: 'crew@example.com', name: 'Ayşe Ekip' })).thenThrows(ForbiddenError, /you recorded/);
  });

  it('lets the owner of a personal job (no organisation) review it', () => {
    const own = { id: 'crew-1', email: 'crew@example.com', name: 'Ayşe Ekip' };
    const events = history(null);
    const [event] = decideJob(review(1, HAT, 'worn', own), events.reduce(evolveJob, initialJobState()));
    expect(event).toMatchObject({ type: 'finding_reviewed', data: { reviewer_id: 'crew-1', violation_count: 0 } });
    expect(event!.data).not.toHaveProperty('org_id');
  });

  it('refuses a job that is not done, a finding the result does not have, and a job that does not exist', () => {
    given(history().slice(0, 2)).when(review(1, HAT, 'worn')).thenThrows(IllegalStateError, /completed analysis/);
    given(history()).when(review(9, HAT, 'worn')).thenThrows(NotFoundError, /no such finding/);
    given(history()).when(review(1, 'pic99', 'worn')).thenThrows(NotFoundError, /no such finding/);
    given([]).when(review(1, HAT, 'worn')).thenThrows(NotFoundError, /does not exist/);
    given([...history(), { type: 'job_deleted', data: { job_id: 'j1', deleted_by: 'admin', at: AT } }]).when(review(1, HAT, 'worn')).thenThrows(NotFoundError, /does not exist/);
  });

  it('reviews a vision model’s violation that has no worker items (its verdict is "missing")', () => {
    const result = { violations: [{ group: ['pic1'], worker: 4, time_sec: 1 }] };
    const events: JobEvent[] = [...history().slice(0, 2), { type: 'job_completed', data: { at: AT, result } }];
    given(events).when(review(4, 'pic1', 'worn')).then([reviewed({ worker: 4, group: 'pic1', model_verdict: 'missing', verdict: 'worn', violation_count: 0, previous_violation_count: 1 })]);
  });
});

const data = (e: JobEvent) => e.data as FindingReviewedData;

describe('the result as it counts once reviewed', () => {
  it('is the stored result, untouched, without a review', () => {
    expect(reviewedResult(RESULT, [])).toBe(RESULT);
    expect(reviewedResult(RESULT, undefined)).toBe(RESULT);
  });

  it('keeps a dismissed violation (dismissed: true) but leaves it out of the figures; the model’s say stays beside it', () => {
    const r = reviewedResult(RESULT, [data(dismissHat)]) as Record<string, unknown> & { violations: Array<Record<string, unknown>>; workers: Array<{ items: Record<string, Record<string, unknown>> }> };
    expect(r.violations).toHaveLength(1);
    expect(r.violations[0]).toMatchObject({ worker: 1, dismissed: true, added_by_review: false, reviewed_verdict: 'worn', review: { verdict: 'worn', by: manager.id, by_name: manager.name, at: AT, note: null } });
    expect(r.violation_count).toBe(0);
    expect(r.missing_groups).toEqual([]);
    expect(r.missing_evidence).toEqual([]);
    expect(r.model_summary).toEqual({ missing_groups: [HAT.split(',')], satisfied_equipment: ['pic23'], violation_count: 1, workers_seen: 3 });
    expect(r.workers[0]!.items[HAT]).toMatchObject({ verdict: 'missing', reviewed_verdict: 'worn', review: { verdict: 'worn' } });
    expect(r.workers[1]!.items[HAT]).toMatchObject({ verdict: 'worn', reviewed_verdict: 'worn', review: null });
    expect((r.names as { en: { missing_groups_name: string[] } }).en.missing_groups_name).toEqual([]);
    expect(countedViolations(RESULT, [data(dismissHat)])).toEqual([]);
    // The hard hat cleared by the review is seen worn now (worker 2 wore one), as the required list says.
    expect(r.satisfied_equipment).toEqual(['pic23', 'pic1']);
    const names = r.names as Record<'en' | 'tr', { satisfied_equipment_name: string[] }>;
    expect(names.en.satisfied_equipment_name).toEqual(['Vest', 'Hard hat']);
    expect(names.tr.satisfied_equipment_name).toEqual(['Yelek', 'Baret']);
  });

  it('lists a group cleared by review as seen worn only when a worker wore it, by the model’s word or the reviewer’s', () => {
    const nobodyWore = { ...RESULT, workers: RESULT.workers.map((w) => (w.worker === 2 ? { ...w, items: { ...w.items, [HAT]: { ...w.items[HAT]!, verdict: 'cannot_tell' } } } : w)) };
    const notAWorker = reviewed({ worker: 1, group: HAT, model_verdict: 'missing', verdict: 'not_a_worker', violation_count: 0, previous_violation_count: 1 });
    const r = reviewedResult(nobodyWore, [data(notAWorker)]) as Record<string, unknown>;
    expect(r.missing_groups).toEqual([]);
    expect(r.satisfied_equipment).toEqual(['pic23']);
    expect((reviewedResult(nobodyWore, [data(dismissHat)]) as Record<string, unknown>).satisfied_equipment).toEqual(['pic23', 'pic1']);
  });

  it('appends a violation added by review (no crop: the model’s keep their index), and its group becomes missing, not satisfied', () => {
    const added = reviewed({ worker: 3, group: VEST, model_verdict: 'cannot_tell', verdict: 'missing', violation_count: 2, previous_violation_count: 1 });
    const r = reviewedResult(RESULT, [data(added)]) as Record<string, unknown> & { violations: Array<Record<string, unknown>> };
    expect(r.violations).toHaveLength(2);
    expect(r.violations[1]).toMatchObject({ worker: 3, group: VEST.split(','), time_sec: 20, end_sec: 21, added_by_review: true, dismissed: false, review: { verdict: 'missing' } });
    expect(r.violation_count).toBe(2);
    expect(r.missing_groups).toEqual([HAT.split(','), VEST.split(',')]);
    expect(r.satisfied_equipment).toEqual([]);
    expect((r.names as { tr: Record<string, string[]> }).tr).toMatchObject({ missing_groups_name: ['Baret', 'Yelek'], violation_group_names: ['Baret', 'Yelek'], satisfied_equipment_name: [] });
    expect(r.missing_evidence).toEqual([
      { group: HAT.split(','), violation: 0 },
      { group: VEST.split(','), violation: 1 },
    ]);
    expect(countedViolations(RESULT, [data(added)]).map((v) => [v.worker, v.group, v.n])).toEqual([
      [1, HAT, 0],
      [3, VEST, null],
    ]);
  });

  it('the latest review of a finding stands', () => {
    const confirmed = reviewed({ worker: 1, group: HAT, model_verdict: 'missing', verdict: 'confirmed', at: '2026-01-03T09:00:00.000Z', violation_count: 1, previous_violation_count: 0 });
    const r = reviewedResult(RESULT, [data(dismissHat), data(confirmed)]) as Record<string, unknown> & { violations: Array<Record<string, unknown>> };
    expect(r.violations[0]).toMatchObject({ dismissed: false, reviewed_verdict: 'missing', review: { verdict: 'confirmed', at: '2026-01-03T09:00:00.000Z' } });
    expect(r.violation_count).toBe(1);
  });

  it('a worker whose every item is "not a worker" leaves the workers seen', () => {
    const notWorker = (group: string, model: 'missing' | 'worn') => data(reviewed({ worker: 1, group, model_verdict: model, verdict: 'not_a_worker', violation_count: 0, previous_violation_count: 1 }));
    expect(reviewedResult(RESULT, [notWorker(HAT, 'missing')]).workers_seen).toBe(3);
    expect(reviewedResult(RESULT, [notWorker(HAT, 'missing'), notWorker(VEST, 'worn')]).workers_seen).toBe(2);
  });
});

describe('the findings still to review (the team’s queue)', () => {
  it('are the violations and the cannot-tell findings no review stands for; a worn item nobody doubted is not one', () => {
    // Worker 1's hard hat (a violation), worker 3's hard hat and vest (cannot tell).
    expect(findingsToReview(RESULT)).toBe(3);
    const review = (worker: number, group: string, model: 'missing' | 'cannot_tell') => data(reviewed({ worker, group, model_verdict: model, verdict: 'confirmed', violation_count: 1, previous_violation_count: 1 }));
    expect(findingsToReview(RESULT, [review(1, HAT, 'missing')])).toBe(2);
    expect(findingsToReview(RESULT, [review(1, HAT, 'missing'), review(3, HAT, 'cannot_tell'), review(3, VEST, 'cannot_tell')])).toBe(0);
    expect(findingsToReview(null)).toBe(0);
  });
});

describe('the refusals of a review', () => {
  it('are said in Turkish too', () => {
    expect([REVIEW_NOT_DONE, REVIEW_OWN_JOB, NO_SUCH_FINDING, ONLY_ORG_MANAGERS_REVIEW, ONLY_OWNER_REVIEWS].filter((m) => !hasTurkish(m))).toEqual([]);
  });
});
