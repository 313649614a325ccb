/**
 * The organisation the user belongs to, and its sites and crews: shared by the navigation, the
 * analyze form and the field queue (features never import each other). Sites and crews are kept in
 * local storage, so a crew on a pole without signal still picks them; the last choice is remembered.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api, ApiError } from '@/lib/api-client';
import type { Org, OrgMember, OrgUnit } from '@/types/api';

/** GET /orgs/current, or null when the user belongs to none (204). */
export async function getCurrentOrg(): Promise<Org | null> {
  return (await api.get<Org | undefined>('/orgs/current')) ?? null;
}

export const currentOrgQueryOptions = () => queryOptions({ queryKey: ['orgs', 'current'], queryFn: getCurrentOrg, staleTime: 60_000 });

export function useCurrentOrg(enabled = true) {
  return useQuery({ ...currentOrgQueryOptions(), enabled });
}

/** localStorage that never breaks the app when blocked or full (kept here, apart from lib/storage, so this module adds no shared chunk). */
const local = {
  get(key: string): unknown {
    try {
      const raw = window.localStorage.getItem(key);
      return raw === null ? null : (JSON.parse(raw) as unknown);
    } catch {
      return null;
    }
  },
  set(key: string, value: unknown): void {
    try {
      window.localStorage.setItem(key, JSON.stringify(value));
    } catch {
      /* storage full or blocked: nothing remembered */
    }
  },
};

/** GET /orgs/{id}/members: the organisation page lists them, the team's jobs filter by them. */
export const orgMembersQueryOptions = (orgId: string) => queryOptions({ queryKey: ['orgs', orgId, 'members'], queryFn: () => api.get<OrgMember[]>(`/orgs/${encodeURIComponent(orgId)}/members`) });

export function useOrgMembers(orgId: string | null | undefined) {
  return useQuery({ ...orgMembersQueryOptions(orgId ?? ''), enabled: !!orgId });
}

export type UnitKind = 'site' | 'crew';
const UNITS_KEY = (orgId: string, kind: UnitKind) => `baret-org-${orgId}-${kind}s`;

const isUnits = (v: unknown): v is OrgUnit[] => Array.isArray(v) && v.every((u) => typeof u === 'object' && u !== null && typeof (u as OrgUnit).id === 'string' && typeof (u as OrgUnit).name === 'string');

/** GET /orgs/{id}/sites or /crews (active ones), remembered for offline use. */
export async function getOrgUnits(orgId: string, kind: UnitKind, archived = false): Promise<OrgUnit[]> {
  try {
    const units = await api.get<OrgUnit[]>(`/orgs/${encodeURIComponent(orgId)}/${kind}s`, { query: archived ? { archived: true } : undefined });
    if (!archived) local.set(UNITS_KEY(orgId, kind), units);
    return units;
  } catch (e) {
    const cached = !archived && e instanceof ApiError && e.status === 0 ? local.get(UNITS_KEY(orgId, kind)) : null;
    if (isUnits(cached)) return cached;
    throw e;
  }
}

export const orgUnitsQueryOptions = (orgId: string, kind: UnitKind, archived = false) =>
  queryOptions({ queryKey: ['orgs', orgId, `${kind}s`, archived], queryFn: () => getOrgUnits(orgId, kind, archived) });

export function useOrgUnits(orgId: string | null | undefined, kind: UnitKind, archived = false) {
  return useQuery({ ...orgUnitsQueryOptions(orgId ?? '', kind, archived), enabled: !!orgId });
}

/** Where and by whom a video is recorded: remembered between recordings. */
export interface RecordingContext {
  site_id: string | null;
  crew_id: string | null;
  work_order: string;
}

const CONTEXT_KEY = 'baret-recording-context';
const isContext = (v: unknown): v is RecordingContext => typeof v === 'object' && v !== null && 'work_order' in v;

export function lastRecordingContext(): RecordingContext {
  const saved = local.get(CONTEXT_KEY);
  return isContext(saved) ? saved : { site_id: null, crew_id: null, work_order: '' };
}

export function rememberRecordingContext(context: RecordingContext): void {
  local.set(CONTEXT_KEY, context);
}

/** The fields an analysis carries in its payload: only those given. */
export function contextPayload(context: RecordingContext | null | undefined): Record<string, string> {
  if (!context) return {};
  const out: Record<string, string> = {};
  if (context.site_id) out.site_id = context.site_id;
  if (context.crew_id) out.crew_id = context.crew_id;
  if (context.work_order.trim()) out.work_order = context.work_order.trim().slice(0, 64);
  return out;
}
