import type { JobResult } from '@/types/api';

export type GroupStatus = 'present' | 'missing' | 'notChecked';

export interface RequiredRow {
  name: string;
  codes: string[];
  status: GroupStatus;
}

const sameGroup = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('|') === [...b].sort().join('|');

/** Each required group with whether it was seen, missing, or could not be checked. */
export function requiredRows(result: JobResult): RequiredRow[] {
  const notChecked = new Set(result.not_checked ?? []);
  return (result.required_groups ?? []).map((codes, index) => {
    const name = result.required_groups_name?.[index] ?? codes.join(' / ');
    const missing = (result.missing_groups ?? []).some((group) => sameGroup(group, codes)) || (result.missing_groups_name ?? []).includes(name);
    const unchecked = codes.length > 0 && codes.every((code) => notChecked.has(code));
    return { name, codes, status: missing ? 'missing' : unchecked ? 'notChecked' : 'present' };
  });
}

/** JSON download is for plans pro and enterprise only (case-insensitive). */
export function canDownloadJson(planName: string | null | undefined): boolean {
  const plan = (planName ?? '').trim().toLowerCase();
  return plan === 'pro' || plan === 'enterprise';
}
