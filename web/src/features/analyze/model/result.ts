import { planHasReports } from '@/lib/plans';
import type { ItemVerdict, JobResult } from '@/types/api';

/** A moment in the video (`m:ss`): one rule for the page and the PDF (issue 54). */
export { clockTime } from '@/lib/video-time';

export type GroupStatus = 'present' | 'missing' | 'notChecked' | 'notJudged';

export interface RequiredRow {
  name: string;
  codes: string[];
  status: GroupStatus;
}

const sameGroup = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('|') === [...b].sort().join('|');

/** The violations that count (issue 53): a violation a reviewer dismissed stays in the result, counted nowhere. */
export const countedViolations = (result: JobResult) => (result.violations ?? []).filter((v) => !v.dismissed);

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
    const violated = countedViolations(result).some((v) => sameGroup(v.group, codes));
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

/**
 * The missing groups' names, with every violated group among them: the page must never say
 * "nothing missing" while a sampled frame shows a worker without a required item.
 */
export function missingNames(result: JobResult): string[] {
  const names = [...(result.missing_groups_name ?? [])];
  for (const v of countedViolations(result)) if (!names.includes(v.group_name)) names.push(v.group_name);
  return names;
}

/** A group judged for at least one worker: its key in `workers[].items` and its name. */
export interface WorkerColumn {
  key: string;
  name: string;
}

/** One worker's row: when they were seen, and per column their verdict (null: that group was not judged for them). */
export interface WorkerRow {
  worker: number;
  firstSec: number;
  lastSec: number;
  frames: number;
  verdicts: (ItemVerdict | null)[];
}

/**
 * The workers followed through the video (issue 51) as a table: one column per group judged for
 * any worker, in the order of the required groups, named as they are (an item's key is the
 * group's codes joined by commas); one row per worker. Empty for results without `workers`.
 */
export function workerTable(result: JobResult): { columns: WorkerColumn[]; rows: WorkerRow[] } {
  const workers = result.workers ?? [];
  const keys = [...new Set(workers.flatMap((w) => Object.keys(w.items)))];
  const required = result.required_groups ?? [];
  const indexOf = (key: string) => {
    const index = required.findIndex((group) => sameGroup(group, key.split(',')));
    return index < 0 ? Number.MAX_SAFE_INTEGER : index;
  };
  keys.sort((a, b) => indexOf(a) - indexOf(b));
  const columns = keys.map((key) => {
    const index = indexOf(key);
    return { key, name: (index < required.length ? result.required_groups_name?.[index] : undefined) ?? key.split(',').join(' / ') };
  });
  const rows = [...workers]
    .sort((a, b) => a.worker - b.worker)
    .map((w) => ({ worker: w.worker, firstSec: w.first_sec, lastSec: w.last_sec, frames: w.frames, verdicts: keys.map((key) => w.items[key]?.verdict ?? null) }));
  return { columns, rows };
}
