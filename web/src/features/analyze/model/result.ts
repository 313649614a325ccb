import type { JobResult } from '@/types/api';

export type GroupStatus = 'present' | 'missing' | 'notChecked';

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
    const missing = inGroups(result.missing_groups, codes) || (result.missing_groups_name ?? []).includes(name);
    const unchecked = inGroups(result.not_checked, codes) || (result.not_checked_name ?? []).includes(name);
    return { name, codes, status: missing ? 'missing' : unchecked ? 'notChecked' : 'present' };
  });
}

/** JSON download is for plans pro and enterprise only (case-insensitive). */
export function canDownloadJson(planName: string | null | undefined): boolean {
  const plan = (planName ?? '').trim().toLowerCase();
  return plan === 'pro' || plan === 'enterprise';
}
