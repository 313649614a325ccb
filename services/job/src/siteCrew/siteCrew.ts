/**
 * The Site and Crew aggregates of an organisation: where a job was recorded and by whom. Both
 * have the same life (created, archived), so one set of events, state and evolve serves both,
 * told apart by `kind` (stream `site-{id}` or `crew-{id}`, events `site_created`, `crew_archived`, …).
 */

export const UNIT_KINDS = ['site', 'crew'] as const;
export type UnitKind = (typeof UNIT_KINDS)[number];

export interface UnitCreatedData {
  id: string;
  org_id: string;
  name: string;
  /** Sites only. */
  city: string | null;
  created_by: string;
  at: string;
}
export interface UnitArchivedData {
  id: string;
  org_id: string;
  archived_by: string;
  at: string;
}

export type SiteCreated = { type: 'site_created'; data: UnitCreatedData };
export type SiteArchived = { type: 'site_archived'; data: UnitArchivedData };
export type CrewCreated = { type: 'crew_created'; data: UnitCreatedData };
export type CrewArchived = { type: 'crew_archived'; data: UnitArchivedData };
export type UnitEvent = SiteCreated | SiteArchived | CrewCreated | CrewArchived;

export type UnitState = { status: 'none' } | { status: 'active' | 'archived'; id: string; org_id: string; name: string; city: string | null };

export const initialUnitState = (): UnitState => ({ status: 'none' });

export function evolveUnit(state: UnitState, event: UnitEvent): UnitState {
  switch (event.type) {
    case 'site_created':
    case 'crew_created':
      return { status: 'active', id: event.data.id, org_id: event.data.org_id, name: event.data.name, city: event.data.city };
    case 'site_archived':
    case 'crew_archived':
      return state.status === 'none' ? state : { ...state, status: 'archived' };
    default: {
      const never: never = event;
      return never;
    }
  }
}

export const unitStream = (kind: UnitKind, id: string): string => `${kind}-${id}`;
