import { IllegalStateError, NotFoundError, ValidationError, type Decider } from '@baret/platform';
import { evolveUnit, initialUnitState, type UnitEvent, type UnitKind, type UnitState } from './siteCrew.js';

export const UNIT_NAME_MAX = 120;
export const CITY_MAX = 80;

export type CreateUnit = { type: 'create_unit'; data: { kind: UnitKind; id: string; org_id: string; name: string; city: string | null; by: string; now: Date } };
export type ArchiveUnit = { type: 'archive_unit'; data: { kind: UnitKind; org_id: string; by: string; now: Date } };
export type UnitCommand = CreateUnit | ArchiveUnit;

const NOT_FOUND: Record<UnitKind, string> = { site: 'This site does not exist.', crew: 'This crew does not exist.' };

export function decideUnit(command: UnitCommand, state: UnitState): UnitEvent[] {
  switch (command.type) {
    case 'create_unit': {
      const { kind, id, org_id, by, now } = command.data;
      if (state.status !== 'none') throw new IllegalStateError('This site or crew already exists.');
      const name = command.data.name.trim();
      if (!name) throw new ValidationError('Please enter a name.');
      const city = command.data.city?.trim() || null;
      const data = { id, org_id, name, city: kind === 'site' ? city : null, created_by: by, at: now.toISOString() };
      return [kind === 'site' ? { type: 'site_created', data } : { type: 'crew_created', data }];
    }
    case 'archive_unit': {
      const { kind, org_id, by, now } = command.data;
      // Another organisation's site is not found, like one that never was.
      if (state.status === 'none' || state.org_id !== org_id) throw new NotFoundError(NOT_FOUND[kind]);
      if (state.status === 'archived') return [];
      const data = { id: state.id, org_id, archived_by: by, at: now.toISOString() };
      return [kind === 'site' ? { type: 'site_archived', data } : { type: 'crew_archived', data }];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const unitDecider: Decider<UnitState, UnitCommand, UnitEvent> = { initialState: initialUnitState, evolve: evolveUnit, decide: decideUnit };
