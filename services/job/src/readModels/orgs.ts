import { DEFAULT_ORG_TIME_ZONE, type DecodedEnvelope, type DocumentStore, type OrgSummary } from '@baret/platform';

/**
 * The organisations as the job service needs them (issue 54): the name and the time zone its
 * reports name, followed from identity's `org-events` (org_created, org_settings_changed).
 */
export interface JobOrgDoc extends Record<string, unknown> {
  id: string;
  /** The revision of the organisation's stream last applied; -1 for a name learnt from the directory. */
  revision: number;
  name: string | null;
  /** Absent until a manager chose one: the default. */
  time_zone: string | null;
}

export const JOB_ORGS = 'job_orgs';

/** An organisation's name (null when unknown) and the zone its reports are written in. */
export interface OrgProfile {
  name: string | null;
  time_zone: string;
}

/** Applies one event of `org-events`; others, and ones already applied, change nothing. */
export async function applyOrgEvent(documents: DocumentStore, event: Pick<DecodedEnvelope, 'type' | 'data' | 'revision'>): Promise<void> {
  if (event.type !== 'org_created' && event.type !== 'org_settings_changed') return;
  const orgId = typeof event.data.org_id === 'string' ? event.data.org_id : '';
  if (!orgId) return;
  const orgs = documents.collection<JobOrgDoc>(JOB_ORGS);
  const doc = (await orgs.get(orgId)) ?? { id: orgId, revision: -1, name: null, time_zone: null };
  if (doc.revision >= event.revision) return;
  const { name, time_zone: zone } = event.data;
  await orgs.put(orgId, {
    ...doc,
    revision: event.revision,
    ...(event.type === 'org_created' && typeof name === 'string' ? { name } : {}),
    ...(typeof zone === 'string' && zone ? { time_zone: zone } : {}),
  });
}

/**
 * An organisation's profile. An organisation created before this service followed `org-events`
 * (the bus log keeps no message every consumer has read) has its name from identity's directory,
 * learnt once; it cannot have chosen a time zone before the setting existed: the default.
 */
export function orgProfiles(documents: DocumentStore, directory?: { listOrgs(): Promise<OrgSummary[]> }) {
  const orgs = documents.collection<JobOrgDoc>(JOB_ORGS);
  return async (orgId: string): Promise<OrgProfile> => {
    let doc = await orgs.get(orgId);
    if (!doc?.name && directory) {
      const name = (await directory.listOrgs().catch(() => [])).find((o) => o.id === orgId)?.name ?? null;
      if (name) {
        doc = { ...((await orgs.get(orgId)) ?? { id: orgId, revision: -1, time_zone: null }), name };
        await orgs.put(orgId, doc);
      }
    }
    return { name: doc?.name ?? null, time_zone: doc?.time_zone ?? DEFAULT_ORG_TIME_ZONE };
  };
}
