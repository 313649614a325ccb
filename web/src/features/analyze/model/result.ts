import { planHasReports } from '@/lib/plans';
import type { JobResult } from '@/types/api';

export type GroupStatus = 'present' | 'missing' | 'notChecked' | 'notJudged';

export interface RequiredRow {
  name: string;
  codes: string[];
  status: GroupStatus;
}

const sameGroup = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('|') === [...b].sort().join('|');

const inGroups = (groups: readonly (readonly string[])[] | undefined, codes: readonly string[]) => (groups ?? []).some((group) => sameGroup(group, codes));

/**
 * Each required group with whether it was seen, missing, or could not be checked. The server
 * puts every required group in exactly one of missing_groups and not_checked (groups of codes)
 * or satisfied_groups.
 */
export function requiredRows(result: JobResult): RequiredRow[] {
  return (result.required_groups ?? []).map((codes, index) => {
    const name = result.required_groups_name?.[index] ?? codes.join(' / ');
    // A group with a violation is missing whatever else was seen.
    const violated = (result.violations ?? []).some((v) => sameGroup(v.group, codes));
    const missing = violated || inGroups(result.missing_groups, codes) || (result.missing_groups_name ?? []).includes(name);
    const unchecked = inGroups(result.not_checked, codes) || (result.not_checked_name ?? []).includes(name);
    // Checkable, but no worker could be judged for it (none seen, or none judged): never "missing".
    const notJudged = inGroups(result.not_judged, codes) || (result.not_judged_name ?? []).includes(name);
    return { name, codes, status: missing ? 'missing' : notJudged ? 'notJudged' : unchecked ? 'notChecked' : 'present' };
  });
}

/** JSON download is for plans pro and enterprise only (case-insensitive). */
export function canDownloadJson(planName: string | null | undefined): boolean {
  return planHasReports(planName);
}

/** `70.4` → `1:10` (minutes:seconds, seconds truncated), `3725` → `1:02:05`. */
export function clockTime(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/**
 * The missing groups' names, with every violated group among them: the page must never say
 * "nothing missing" while a sampled frame shows a worker without a required item.
 */
export function missingNames(result: JobResult): string[] {
  const names = [...(result.missing_groups_name ?? [])];
  for (const v of result.violations ?? []) if (!names.includes(v.group_name)) names.push(v.group_name);
  return names;
}
