/**
 * The compliance read model, projected from the job events, in two levels:
 * - one small document per job of an organisation (queued → where, by whom, when; completed → what
 *   was found), guarded by the stream revision;
 * - one document per organisation and UTC day, the sums of that day's finished jobs per site × crew ×
 *   job type, and its latest violations. It is recomputed from the day's job documents whenever one
 *   of them is finished or deleted, so it is idempotent (a replay recomputes the same sums). The
 *   compliance endpoint reads only these: a year is 365 small documents, whatever the jobs.
 * Rebuildable: drop both and replay the job streams (`npm run admin -- rebuild-compliance`).
 */
import { randomUUID } from 'node:crypto';
import { type ComplianceCounts, type DocumentStore, type EventStore, type Lang, type Projection, type RecordedEvent, type StreamReader } from '@baret/platform';
import { countedViolations, notWorkers, type FindingReviewedData } from '../job/findings.js';
import type { JobEvent, JobStatus } from '../job/job.js';

export interface ComplianceDoc extends Record<string, unknown> {
  id: string;
  revision: number;
  org_id: string;
  user_id: string;
  site_id: string | null;
  crew_id: string | null;
  created_at: string;
  status: JobStatus;
  job_type: string;
  /** The job type's name in each language, once classified. */
  job_type_names: Partial<Record<Lang, string>>;
  workers_seen: number;
  has_violations: boolean;
  /** Violations (a worker without a required group's equipment, one per run of frames) by group key. */
  violations: Record<string, number>;
  /** The groups' names in each language, by group key. */
  group_names: Record<string, Partial<Record<Lang, string>>>;
  /** The first violation: its place in the result (for its crop), group and time. */
  first_violation: { n: number; group: string; time_sec: number } | null;
}

export const COMPLIANCE = 'job_compliance';
export const COMPLIANCE_DAYS = 'job_compliance_days';
/** The days summed per week and per month: a year by week is 53 documents, not 365 (issue 28's bench). */
export const COMPLIANCE_PERIODS = 'job_compliance_periods';

/** Sums of one day's finished jobs of one site, crew and job type (the counts of a report's row). */
export interface DayCombo extends ComplianceCounts {
  site_id: string | null;
  crew_id: string | null;
  job_type: string;
  job_type_names: Partial<Record<Lang, string>>;
}

export interface LatestViolation {
  job_id: string;
  created_at: string;
  site_id: string | null;
  crew_id: string | null;
  job_type: string;
  group: string;
  n: number;
  time_sec: number;
}

export interface ComplianceDayDoc extends Record<string, unknown> {
  id: string;
  org_id: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  combos: DayCombo[];
  group_names: Record<string, Partial<Record<Lang, string>>>;
  /** The day's latest violations (first one of each job), newest first, at most LATEST_PER_DAY. */
  latest: LatestViolation[];
}

/**
 * The sums of an organisation's whole week (from Monday) or month (UTC): the same shape as a day
 * (`day` is the period's first day), recomputed from the period's day documents whenever one of
 * them changes. `latest` holds every day's latest violations, newest first.
 */
export interface CompliancePeriodDoc extends ComplianceDayDoc {
  interval: PeriodInterval;
  /** The period's last day, YYYY-MM-DD. */
  last_day: string;
}
export type PeriodInterval = 'week' | 'month';
export const PERIOD_INTERVALS: readonly PeriodInterval[] = ['week', 'month'];

/** The first and last day (YYYY-MM-DD, UTC) of the week (from Monday) or month holding `day`. */
export function periodBounds(day: string, interval: PeriodInterval): { start: string; last: string } {
  const d = new Date(`${day}T00:00:00.000Z`);
  if (interval === 'month') {
    const start = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
    const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0));
    return { start: start.toISOString().slice(0, 10), last: last.toISOString().slice(0, 10) };
  }
  const start = d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS;
  return { start: new Date(start).toISOString().slice(0, 10), last: new Date(start + 6 * DAY_MS).toISOString().slice(0, 10) };
}

/** Sums day documents (or periods) into one: combos by site × crew × job type, names, latest violations newest first. */
export function sumDays(docs: readonly ComplianceDayDoc[]): Pick<ComplianceDayDoc, 'combos' | 'group_names' | 'latest'> {
  const combos = new Map<string, DayCombo>();
  const groupNames: Record<string, Partial<Record<Lang, string>>> = {};
  const latest: LatestViolation[] = [];
  for (const d of docs) {
    for (const c of d.combos) {
      const key = `${c.site_id ?? ''}|${c.crew_id ?? ''}|${c.job_type}`;
      const sum = combos.get(key) ?? { ...c, jobs: 0, jobs_with_violations: 0, workers_seen: 0, violations: {} };
      sum.jobs += c.jobs;
      sum.jobs_with_violations += c.jobs_with_violations;
      sum.workers_seen += c.workers_seen;
      for (const [g, n] of Object.entries(c.violations)) sum.violations[g] = (sum.violations[g] ?? 0) + n;
      combos.set(key, sum);
    }
    Object.assign(groupNames, d.group_names);
    latest.push(...d.latest);
  }
  latest.sort((a, b) => b.created_at.localeCompare(a.created_at));
  return { combos: [...combos.values()], group_names: groupNames, latest };
}

/** Recomputes an organisation's week or month holding `day` from its day documents: removed when none is left. */
export async function recomputePeriod(documents: DocumentStore, orgId: string, day: string, interval: PeriodInterval): Promise<void> {
  const { start, last } = periodBounds(day, interval);
  const periods = documents.collection<CompliancePeriodDoc>(COMPLIANCE_PERIODS);
  const id = `${orgId}|${interval}|${start}`;
  const days = await documents.collection<ComplianceDayDoc>(COMPLIANCE_DAYS).find({ where: { org_id: orgId, day: { $gte: start, $lte: last } } });
  if (days.length === 0) {
    await periods.delete(id);
    return;
  }
  await periods.put(id, { id, org_id: orgId, interval, day: start, last_day: last, ...sumDays(days) });
}

export const LATEST_PER_DAY = 8;
const DAY_MS = 86_400_000;

/**
 * Recomputes an organisation's day from its job documents (removed when no finished job is left),
 * then its week and month unless `periods` is false (a rebuild does those once at its end).
 */
export async function recomputeDay(documents: DocumentStore, orgId: string, day: string, periods = true): Promise<void> {
  await recomputeDayOnly(documents, orgId, day);
  if (periods) for (const interval of PERIOD_INTERVALS) await recomputePeriod(documents, orgId, day, interval);
}

async function recomputeDayOnly(documents: DocumentStore, orgId: string, day: string): Promise<void> {
  const days = documents.collection<ComplianceDayDoc>(COMPLIANCE_DAYS);
  const start = `${day}T00:00:00.000Z`;
  const end = new Date(Date.parse(start) + DAY_MS).toISOString();
  const jobs = await documents
    .collection<ComplianceDoc>(COMPLIANCE)
    .find({ where: { org_id: orgId, status: 'done', created_at: { $gte: start, $lt: end } }, orderBy: [{ field: 'created_at' }, { field: 'id' }] });
  const id = `${orgId}|${day}`;
  if (jobs.length === 0) {
    await days.delete(id);
    return;
  }
  const combos = new Map<string, DayCombo>();
  const groupNames: Record<string, Partial<Record<Lang, string>>> = {};
  for (const j of jobs) {
    const key = `${j.site_id ?? ''}|${j.crew_id ?? ''}|${j.job_type}`;
    const c = combos.get(key) ?? { site_id: j.site_id, crew_id: j.crew_id, job_type: j.job_type, job_type_names: j.job_type_names, jobs: 0, jobs_with_violations: 0, workers_seen: 0, violations: {} };
    c.jobs += 1;
    if (j.has_violations) c.jobs_with_violations += 1;
    c.workers_seen += j.workers_seen;
    for (const [g, n] of Object.entries(j.violations)) c.violations[g] = (c.violations[g] ?? 0) + n;
    Object.assign(groupNames, j.group_names);
    combos.set(key, c);
  }
  const latest = jobs
    .filter((j) => j.first_violation)
    .slice(-LATEST_PER_DAY)
    .reverse()
    .map((j) => ({ job_id: j.id, created_at: j.created_at, site_id: j.site_id, crew_id: j.crew_id, job_type: j.job_type, ...j.first_violation! }));
  await days.put(id, { id, org_id: orgId, day, combos: [...combos.values()], group_names: groupNames, latest });
}

/** A group of equivalent equipment codes as one key: "pic1,pic2". */
export const groupKey = (group: readonly string[]): string => group.join(',');

interface StoredViolation {
  group?: string[];
  worker?: number;
  time_sec?: number;
}

/** A group's name in each language: from one of its violations, else from the required groups' names. */
export function groupNames(result: Record<string, unknown>, key: string): Partial<Record<Lang, string>> {
  const resultNames = (result.names ?? {}) as Partial<Record<Lang, { violation_group_names?: string[]; required_groups_name?: string[] }>>;
  const violations = Array.isArray(result.violations) ? (result.violations as StoredViolation[]) : [];
  const at = violations.findIndex((v) => groupKey(v.group ?? []) === key);
  const required = Array.isArray(result.required_groups) ? (result.required_groups as string[][]).findIndex((g) => groupKey(g) === key) : -1;
  const names: Partial<Record<Lang, string>> = {};
  for (const lang of ['tr', 'en'] as const) {
    const name = (at >= 0 ? resultNames[lang]?.violation_group_names?.[at] : undefined) ?? (required >= 0 ? resultNames[lang]?.required_groups_name?.[required] : undefined);
    if (name) names[lang] = name;
  }
  return names;
}

/**
 * What a finished job's result says, for compliance, as reviewed (issue 53): a dismissed violation
 * leaves the figures, one added by a reviewer enters them, a person reviewed "not a worker" on
 * every item leaves the workers seen.
 */
export function findingsOf(result: Record<string, unknown>, reviews: readonly FindingReviewedData[] = []) {
  const violations = countedViolations(result, reviews);
  const counts: Record<string, number> = {};
  const names: Record<string, Partial<Record<Lang, string>>> = {};
  const resultNames = (result.names ?? {}) as Partial<Record<Lang, { job_display_name?: string }>>;
  for (const v of violations) {
    counts[v.group] = (counts[v.group] ?? 0) + 1;
    if (!names[v.group]) {
      const named = groupNames(result, v.group);
      if (Object.keys(named).length > 0) names[v.group] = named;
    }
  }
  // Results from before issue 28 have no worker count: the highest worker number seen is the floor.
  const numbered = violations.reduce((m, v) => Math.max(m, v.worker), 0);
  const workers = Math.max(0, (typeof result.workers_seen === 'number' ? result.workers_seen : numbered) - notWorkers(result, reviews));
  // The latest violations link to the crop: the first counted violation of the model's (one added by a reviewer has none).
  const first = violations.find((v) => v.n !== null);
  return {
    job_type: typeof result.job_type === 'string' ? result.job_type : null,
    job_type_names: Object.fromEntries(
      (['tr', 'en'] as const).flatMap((l) => (typeof resultNames[l]?.job_display_name === 'string' ? [[l, resultNames[l]!.job_display_name!]] : [])),
    ) as Partial<Record<Lang, string>>,
    workers_seen: workers,
    violations: counts,
    group_names: names,
    first_violation: first ? { n: first.n!, group: first.group, time_sec: first.time_sec } : null,
  };
}

/** A done job's result and the reviews standing at `revision`, read from its stream (a review is rare: reading it is cheap). */
async function reviewedAt(events: StreamReader, streamId: string, revision: number): Promise<{ result: Record<string, unknown> | null; reviews: FindingReviewedData[] }> {
  let result: Record<string, unknown> | null = null;
  const reviews: FindingReviewedData[] = [];
  for (const e of await events.readStream(streamId)) {
    if (e.revision > revision) break;
    if (e.type === 'job_completed') result = ((e.data as { result?: Record<string, unknown> }).result ?? {}) as Record<string, unknown>;
    if (e.type === 'finding_reviewed') reviews.push(e.data as FindingReviewedData);
  }
  return { result, reviews };
}

/** The job document's findings as a review changed them. */
async function applyReview(recorded: RecordedEvent, doc: ComplianceDoc, events: StreamReader): Promise<ComplianceDoc | null> {
  if (doc.status !== 'done') return null;
  const { result, reviews } = await reviewedAt(events, recorded.streamId, recorded.revision);
  if (!result) return null;
  const f = findingsOf(result, reviews);
  return {
    ...doc,
    revision: recorded.revision,
    workers_seen: f.workers_seen,
    has_violations: Object.keys(f.violations).length > 0,
    violations: f.violations,
    group_names: f.group_names,
    first_violation: f.first_violation,
  };
}

/**
 * Applies one job event to the job documents; returns the organisation day whose sums it changed
 * (a job finished or deleted), if any.
 */
async function applyToJob(recorded: RecordedEvent, documents: DocumentStore, events: StreamReader): Promise<{ orgId: string; day: string } | null> {
  const docs = documents.collection<ComplianceDoc>(COMPLIANCE);
  const jobId = recorded.streamId.slice('job-'.length);
  const event = { type: recorded.type, data: recorded.data } as JobEvent;
  if (event.type === 'job_queued') {
    const d = event.data;
    if (!d.org_id || (await docs.get(jobId))) return null; // only jobs of an organisation; once
    await docs.put(jobId, {
      id: jobId,
      revision: recorded.revision,
      org_id: d.org_id,
      user_id: d.user_id,
      site_id: d.site_id ?? null,
      crew_id: d.crew_id ?? null,
      created_at: d.queued_at,
      status: 'queued',
      job_type: d.params.job_type,
      job_type_names: {},
      workers_seen: 0,
      has_violations: false,
      violations: {},
      group_names: {},
      first_violation: null,
    });
    return null;
  }
  const doc = await docs.get(jobId);
  if (!doc || recorded.revision <= doc.revision) return null;
  const dayOf = { orgId: doc.org_id, day: doc.created_at.slice(0, 10) };
  switch (event.type) {
    case 'job_started':
      await docs.put(jobId, { ...doc, revision: recorded.revision, status: 'running' });
      return null;
    case 'job_completed': {
      const f = findingsOf(event.data.result);
      await docs.put(jobId, {
        ...doc,
        revision: recorded.revision,
        status: 'done',
        job_type: f.job_type ?? doc.job_type,
        job_type_names: f.job_type_names,
        workers_seen: f.workers_seen,
        has_violations: Object.keys(f.violations).length > 0,
        violations: f.violations,
        group_names: f.group_names,
        first_violation: f.first_violation,
      });
      return dayOf;
    }
    case 'job_failed':
      await docs.put(jobId, { ...doc, revision: recorded.revision, status: 'error' });
      return null;
    case 'job_cancelled':
      await docs.put(jobId, { ...doc, revision: recorded.revision, status: 'cancelled' });
      return null;
    case 'job_deleted':
    case 'job_purged':
      await docs.delete(jobId);
      return doc.status === 'done' ? dayOf : null;
    case 'finding_reviewed': {
      const next = await applyReview(recorded, doc, events);
      if (!next) return null;
      await docs.put(jobId, next);
      return dayOf;
    }
    default:
      return null; // progress changes nothing here
  }
}

export const complianceProjection: Projection = {
  name: 'job-compliance',
  categories: ['job'],
  async apply(recorded: RecordedEvent, documents: DocumentStore, events: StreamReader) {
    const changed = await applyToJob(recorded, documents, events);
    if (changed) await recomputeDay(documents, changed.orgId, changed.day);
  },
};

/**
 * Rebuilds the compliance read model from the event store: the collection is emptied and every
 * job stream is replayed through the projection, in global order, up to a marker event appended
 * first (`compliance_rebuild_requested`, so the replay knows where "now" is); then the projection's
 * checkpoint is set there. Safe while the service runs: the projection is idempotent by revision.
 */
export async function rebuildCompliance(eventStore: EventStore, documents: DocumentStore, by: string, now: Date): Promise<{ jobs: number; events: number }> {
  const docs = documents.collection<ComplianceDoc>(COMPLIANCE);
  const marker = await eventStore.appendToStream(`compliance-rebuild-${randomUUID()}`, [{ type: 'compliance_rebuild_requested', data: { by, at: now.toISOString() } }], {
    expectedRevision: 'no_stream',
  });
  await docs.deleteMany({});
  await documents.collection(COMPLIANCE_DAYS).deleteMany({});
  await documents.collection(COMPLIANCE_PERIODS).deleteMany({});
  let events = 0;
  // The days are recomputed once each at the end, not after every job.
  const touched = new Map<string, { orgId: string; day: string }>();
  const controller = new AbortController();
  for await (const e of eventStore.subscribeToAll({ fromPosition: 0, signal: controller.signal })) {
    if (e.streamId.startsWith('job-')) {
      const changed = await applyToJob(e, documents, eventStore);
      if (changed) touched.set(`${changed.orgId}|${changed.day}`, changed);
      events++;
    }
    if (e.position >= marker.position) break;
  }
  controller.abort();
  const periods = new Map<string, { orgId: string; day: string; interval: PeriodInterval }>();
  for (const { orgId, day } of touched.values()) {
    await recomputeDay(documents, orgId, day, false);
    for (const interval of PERIOD_INTERVALS) periods.set(`${orgId}|${interval}|${periodBounds(day, interval).start}`, { orgId, day, interval });
  }
  for (const { orgId, day, interval } of periods.values()) await recomputePeriod(documents, orgId, day, interval);
  await documents.collection('checkpoints').put(PERIODS_MARK, { done: true });
  await documents.collection('checkpoints').put(`projection:${complianceProjection.name}`, { position: marker.position });
  return { jobs: await docs.count({}), events };
}

/**
 * Weeks and months for day documents written before they existed (a read model from before the
 * periods): computed once (a mark in the checkpoints says so). Idempotent.
 */
export async function backfillPeriods(documents: DocumentStore): Promise<number> {
  const checkpoints = documents.collection('checkpoints');
  if (await checkpoints.get(PERIODS_MARK)) return 0;
  const days = await documents.collection<ComplianceDayDoc>(COMPLIANCE_DAYS).find({});
  const todo = new Map<string, { orgId: string; day: string; interval: PeriodInterval }>();
  for (const d of days) for (const interval of PERIOD_INTERVALS) todo.set(`${d.org_id}|${interval}|${periodBounds(d.day, interval).start}`, { orgId: d.org_id, day: d.day, interval });
  for (const { orgId, day, interval } of todo.values()) await recomputePeriod(documents, orgId, day, interval);
  await checkpoints.put(PERIODS_MARK, { done: true });
  return todo.size;
}
const PERIODS_MARK = 'compliance-periods-backfilled';
