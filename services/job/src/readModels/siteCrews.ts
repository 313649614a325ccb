import { isNewer, type DocumentStore, type Projection, type RecordedEvent } from '@baret/platform';
import { evolveUnit, type UnitEvent, type UnitKind } from '../siteCrew/siteCrew.js';

/** A site or a crew of an organisation. */
export interface UnitDoc extends Record<string, unknown> {
  id: string;
  revision: number;
  org_id: string;
  name: string;
  city: string | null;
  archived: boolean;
  created_at: string;
}

export const SITES = 'job_sites';
export const CREWS = 'job_crews';
export const unitCollection = (kind: UnitKind): string => (kind === 'site' ? SITES : CREWS);

/** Sites and crews, one document each, from their streams. */
export const siteCrewsProjection: Projection = {
  name: 'job-sites-crews',
  categories: ['site', 'crew'],
  async apply(recorded: RecordedEvent, documents: DocumentStore) {
    const kind = recorded.streamId.startsWith('site-') ? 'site' : 'crew';
    const units = documents.collection<UnitDoc>(unitCollection(kind));
    const id = recorded.streamId.slice(kind.length + 1);
    const doc = await units.get(id);
    if (!isNewer(doc, recorded.revision)) return;
    const before = doc ? { status: doc.archived ? ('archived' as const) : ('active' as const), id, org_id: doc.org_id, name: doc.name, city: doc.city } : { status: 'none' as const };
    const event = { type: recorded.type, data: recorded.data } as UnitEvent;
    const next = evolveUnit(before, event);
    if (next.status === 'none') return;
    await units.put(id, {
      id,
      revision: recorded.revision,
      org_id: next.org_id,
      name: next.name,
      city: next.city,
      archived: next.status === 'archived',
      created_at: doc?.created_at ?? (event.type.endsWith('_created') ? String(event.data.at) : recorded.createdAt.toISOString()),
    });
  },
};

export const publicUnit = (u: UnitDoc) => ({ id: u.id, name: u.name, city: u.city, archived: u.archived, created_at: u.created_at });
