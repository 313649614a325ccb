/**
 * The compliance read model: one small document per job of an organisation, projected from the
 * job events (queued → where, by whom, when; completed → what was found). The compliance endpoint
 * groups these by site, crew or job type and by day, week or month when asked. Rebuildable: drop
 * the collection and replay the job streams (`npm run admin -- rebuild-compliance`).
 */
import { randomUUID } from 'node:crypto';
import { type DocumentStore, type EventStore, type Lang, type Projection, type RecordedEvent } from '@baret/platform';
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

/** A group of equivalent equipment codes as one key: "pic1,pic2". */
export const groupKey = (group: readonly string[]): string => group.join(',');

interface StoredViolation {
  group?: string[];
  worker?: number;
  time_sec?: number;
}

/** What a finished job's result says, for compliance. */
export function findingsOf(result: Record<string, unknown>) {
  const violations = Array.isArray(result.violations) ? (result.violations as StoredViolation[]) : [];
  const counts: Record<string, number> = {};
  const names: Record<string, Partial<Record<Lang, string>>> = {};
  const resultNames = (result.names ?? {}) as Partial<Record<Lang, { violation_group_names?: string[]; job_display_name?: string }>>;
  violations.forEach((v, n) => {
    const key = groupKey(v.group ?? []);
    counts[key] = (counts[key] ?? 0) + 1;
    for (const lang of ['tr', 'en'] as const) {
      const name = resultNames[lang]?.violation_group_names?.[n];
      if (name) names[key] = { ...names[key], [lang]: name };
    }
  });
  // Results from before issue 28 have no worker count: the highest worker number seen is the floor.
  const numbered = violations.reduce((m, v) => Math.max(m, Number(v.worker ?? 0)), 0);
  const workers = typeof result.workers_seen === 'number' ? result.workers_seen : numbered;
  const first = violations[0];
  return {
    job_type: typeof result.job_type === 'string' ? result.job_type : null,
    job_type_names: Object.fromEntries(
      (['tr', 'en'] as const).flatMap((l) => (typeof resultNames[l]?.job_display_name === 'string' ? [[l, resultNames[l]!.job_display_name!]] : [])),
    ) as Partial<Record<Lang, string>>,
    workers_seen: workers,
    violations: counts,
    group_names: names,
    first_violation: first ? { n: 0, group: groupKey(first.group ?? []), time_sec: Number(first.time_sec ?? 0) } : null,
  };
}

export const complianceProjection: Projection = {
  name: 'job-compliance',
  categories: ['job'],
  async apply(recorded: RecordedEvent, documents: DocumentStore) {
    const docs = documents.collection<ComplianceDoc>(COMPLIANCE);
    const jobId = recorded.streamId.slice('job-'.length);
    const event = { type: recorded.type, data: recorded.data } as JobEvent;
    if (event.type === 'job_queued') {
      const d = event.data;
      if (!d.org_id || (await docs.get(jobId))) return; // only jobs of an organisation; once
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
      return;
    }
    const doc = await docs.get(jobId);
    if (!doc || recorded.revision <= doc.revision) return;
    switch (event.type) {
      case 'job_started':
        await docs.put(jobId, { ...doc, revision: recorded.revision, status: 'running' });
        return;
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
        return;
      }
      case 'job_failed':
        await docs.put(jobId, { ...doc, revision: recorded.revision, status: 'error' });
        return;
      case 'job_cancelled':
        await docs.put(jobId, { ...doc, revision: recorded.revision, status: 'cancelled' });
        return;
      case 'job_deleted':
        await docs.delete(jobId);
        return;
      default:
        return; // progress changes nothing here
    }
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
  let events = 0;
  const controller = new AbortController();
  for await (const e of eventStore.subscribeToAll({ fromPosition: 0, signal: controller.signal })) {
    if (e.streamId.startsWith('job-')) {
      await complianceProjection.apply(e, documents);
      events++;
    }
    if (e.position >= marker.position) break;
  }
  controller.abort();
  await documents.collection('checkpoints').put(`projection:${complianceProjection.name}`, { position: marker.position });
  return { jobs: await docs.count({}), events };
}
