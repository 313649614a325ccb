/** Compliance over time of an organisation, from the compliance read model (readModels/compliance.ts). */
import { ValidationError, type Collection, type ComplianceRow, type Filter, type Lang } from '@baret/platform';
import { periodBounds, type ComplianceDayDoc, type CompliancePeriodDoc } from '../readModels/compliance.js';

export const GROUP_BY = ['site', 'crew', 'job_type'] as const;
export const INTERVALS = ['day', 'week', 'month'] as const;
export type GroupBy = (typeof GROUP_BY)[number];
export type Interval = (typeof INTERVALS)[number];

const DAY = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A date bound of a query: `YYYY-MM-DD` (a whole UTC day; `to` includes it) or a date-time.
 * Returns the ISO instant, `to` exclusive.
 */
export function dateBound(value: string | undefined, edge: 'from' | 'to', fallback: Date): string {
  if (value === undefined || value === '') return fallback.toISOString();
  const t = DATE_ONLY.test(value) ? Date.parse(`${value}T00:00:00.000Z`) + (edge === 'to' ? DAY : 0) : Date.parse(value);
  if (!Number.isFinite(t)) throw new ValidationError(`${edge} must be a date (YYYY-MM-DD) or a date-time.`);
  return new Date(t).toISOString();
}

/** The range of a query: [from, to), by default the twelve weeks up to now. */
export function rangeOf(query: { from?: string; to?: string }, now: Date): { from: string; to: string } {
  const to = dateBound(query.to, 'to', now);
  const from = dateBound(query.from, 'from', new Date(Date.parse(to) - 12 * 7 * DAY));
  if (from >= to) throw new ValidationError('from must be before to.');
  return { from, to };
}

/** The first day (UTC) of the period holding `iso`: the day, the week (from Monday), or the month. */
export function periodStart(iso: string, interval: Interval): string {
  const d = new Date(iso);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (interval === 'day') return new Date(day).toISOString().slice(0, 10);
  if (interval === 'month') return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)).toISOString().slice(0, 10);
  const sinceMonday = (d.getUTCDay() + 6) % 7;
  return new Date(day - sinceMonday * DAY).toISOString().slice(0, 10);
}

export type { ComplianceRow };

const NONE: Record<'site' | 'crew', Record<Lang, string>> = {
  site: { tr: 'Saha belirtilmemiş', en: 'No site' },
  crew: { tr: 'Ekip belirtilmemiş', en: 'No crew' },
};

export interface ComplianceQuery {
  orgId: string;
  from: string;
  to: string;
  by: GroupBy;
  interval: Interval;
  siteId?: string;
  crewId?: string;
  jobType?: string;
  lang: Lang;
  siteNames: Map<string, string>;
  crewNames: Map<string, string>;
}

/**
 * The organisation's days in [from, to), whole UTC days: from the day of `from` to the day of the
 * last instant before `to`.
 */
export function complianceDays(days: Collection<ComplianceDayDoc>, q: Pick<ComplianceQuery, 'orgId' | 'from' | 'to'>) {
  const first = q.from.slice(0, 10);
  const last = new Date(Date.parse(q.to) - 1).toISOString().slice(0, 10);
  return daysBetween(days, q.orgId, first, last);
}

function daysBetween(days: Collection<ComplianceDayDoc>, orgId: string, first: string, last: string) {
  const where: Filter = { org_id: orgId, day: { $gte: first, $lte: last } };
  return days.find({ where, orderBy: [{ field: 'day' }] });
}

const shiftDay = (day: string, by: number): string => new Date(Date.parse(`${day}T00:00:00.000Z`) + by * DAY).toISOString().slice(0, 10);

/**
 * What a report by week or month reads: each whole week or month inside the range from its period
 * document (one instead of seven or thirty), the partial ones at either end from their days. By
 * day: the days. Each document has the shape of a day (`day` is its first day), so
 * complianceReport sums them alike.
 */
export async function complianceDocs(
  days: Collection<ComplianceDayDoc>,
  periods: Collection<CompliancePeriodDoc>,
  q: Pick<ComplianceQuery, 'orgId' | 'from' | 'to' | 'interval'>,
): Promise<ComplianceDayDoc[]> {
  const first = q.from.slice(0, 10);
  const last = new Date(Date.parse(q.to) - 1).toISOString().slice(0, 10);
  if (q.interval === 'day') return daysBetween(days, q.orgId, first, last);
  const head = periodBounds(first, q.interval);
  const tail = periodBounds(last, q.interval);
  const fullStart = head.start === first ? head.start : shiftDay(head.last, 1);
  const fullEnd = tail.last === last ? tail.last : shiftDay(tail.start, -1);
  if (fullStart > fullEnd) return daysBetween(days, q.orgId, first, last);
  // The cut ends are a few days (at most a month's): each read by its id (`<org>|<day>`), not by a
  // filter that would look at every day of the organisation.
  const byId = async (from: string, to: string) => {
    const ids: string[] = [];
    for (let d = from; d <= to; d = shiftDay(d, 1)) ids.push(`${q.orgId}|${d}`);
    return (await Promise.all(ids.map((id) => days.get(id)))).filter((d): d is ComplianceDayDoc => d !== null);
  };
  const [before, whole, after] = await Promise.all([
    first < fullStart ? byId(first, shiftDay(fullStart, -1)) : [],
    periods.find({ where: { org_id: q.orgId, interval: q.interval, day: { $gte: fullStart, $lte: fullEnd } }, orderBy: [{ field: 'day' }] }),
    fullEnd < last ? byId(shiftDay(fullEnd, 1), last) : [],
  ]);
  return [...before, ...whole, ...after];
}

/**
 * Rows per key (site, crew or job type) and period: finished jobs, those with violations, workers
 * seen, and violations by equipment group; plus the groups' names and the latest violations.
 */
export function complianceReport(days: readonly ComplianceDayDoc[], q: ComplianceQuery) {
  const rows = new Map<string, ComplianceRow>();
  const groups: Record<string, string> = {};
  const wanted = (c: { site_id: string | null; crew_id: string | null; job_type: string }) =>
    (!q.siteId || c.site_id === q.siteId) && (!q.crewId || c.crew_id === q.crewId) && (!q.jobType || c.job_type === q.jobType);
  for (const day of days) {
    const period = periodStart(`${day.day}T00:00:00.000Z`, q.interval);
    for (const c of day.combos) {
      if (!wanted(c)) continue;
      const key = q.by === 'site' ? c.site_id : q.by === 'crew' ? c.crew_id : c.job_type;
      const id = `${period}|${key ?? ''}`;
      let row = rows.get(id);
      if (!row) {
        const name =
          q.by === 'job_type'
            ? (c.job_type_names[q.lang] ?? c.job_type_names.en ?? c.job_type)
            : key === null
              ? NONE[q.by][q.lang]
              : ((q.by === 'site' ? q.siteNames : q.crewNames).get(key) ?? key);
        row = { key, name, period_start: period, jobs: 0, jobs_with_violations: 0, workers_seen: 0, violations: {} };
        rows.set(id, row);
      }
      row.jobs += c.jobs;
      row.jobs_with_violations += c.jobs_with_violations;
      row.workers_seen += c.workers_seen;
      for (const [group, n] of Object.entries(c.violations)) {
        row.violations[group] = (row.violations[group] ?? 0) + n;
        groups[group] ??= day.group_names[group]?.[q.lang] ?? day.group_names[group]?.en ?? group;
      }
    }
  }
  const latest = days
    .flatMap((d) => d.latest.filter(wanted).map((v) => ({ v, names: d.group_names })))
    .sort((a, b) => b.v.created_at.localeCompare(a.v.created_at))
    .slice(0, 8)
    .map(({ v, names }) => ({
      job_id: v.job_id,
      created_at: v.created_at,
      site_id: v.site_id,
      site_name: v.site_id ? (q.siteNames.get(v.site_id) ?? null) : null,
      crew_id: v.crew_id,
      crew_name: v.crew_id ? (q.crewNames.get(v.crew_id) ?? null) : null,
      group: v.group,
      group_name: names[v.group]?.[q.lang] ?? names[v.group]?.en ?? v.group,
      time_sec: v.time_sec,
      image_url: `/jobs/${v.job_id}/violations/${v.n}`,
    }));
  return {
    from: q.from,
    to: q.to,
    by: q.by,
    interval: q.interval,
    rows: [...rows.values()].sort((a, b) => a.period_start.localeCompare(b.period_start) || a.name.localeCompare(b.name, q.lang)),
    groups,
    latest_violations: latest,
  };
}

/** One CSV cell: quoted when needed; a cell a spreadsheet would run as a formula is made text. */
export function csvCell(value: string | number | null | undefined, sep: string): string {
  let s = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return s.includes(sep) || /["\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
