/** Figures the dashboard shows, from the compliance rows (pure, tested). */
import type { ComplianceRow } from '@/types/api';

export interface Totals {
  jobs: number;
  withViolations: number;
  workers: number;
  /** Share of jobs without violations, 0..1; null without jobs. */
  compliant: number | null;
}

export function totals(rows: readonly ComplianceRow[]): Totals {
  const jobs = rows.reduce((s, r) => s + r.jobs, 0);
  const withViolations = rows.reduce((s, r) => s + r.jobs_with_violations, 0);
  return { jobs, withViolations, workers: rows.reduce((s, r) => s + r.workers_seen, 0), compliant: jobs ? (jobs - withViolations) / jobs : null };
}

/** Violations per equipment group over every row, most first. */
export function violationsByGroup(rows: readonly ComplianceRow[]): Array<{ group: string; count: number }> {
  const sums = new Map<string, number>();
  for (const r of rows) for (const [g, n] of Object.entries(r.violations)) sums.set(g, (sums.get(g) ?? 0) + n);
  return [...sums.entries()].map(([group, count]) => ({ group, count })).sort((a, b) => b.count - a.count || a.group.localeCompare(b.group));
}

export interface Period {
  period: string;
  jobs: number;
  compliant: number | null;
}

/** Every period of the rows, in order, with its share of jobs without violations. */
export function byPeriod(rows: readonly ComplianceRow[]): Period[] {
  const map = new Map<string, { jobs: number; bad: number }>();
  for (const r of rows) {
    const p = map.get(r.period_start) ?? { jobs: 0, bad: 0 };
    p.jobs += r.jobs;
    p.bad += r.jobs_with_violations;
    map.set(r.period_start, p);
  }
  return [...map.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([period, p]) => ({ period, jobs: p.jobs, compliant: p.jobs ? (p.jobs - p.bad) / p.jobs : null }));
}

export interface Ranked {
  key: string | null;
  name: string;
  jobs: number;
  compliant: number | null;
  trend: Period[];
}

/** Sites or crews ranked by their share of jobs without violations (best first), each with its weekly trend. */
export function ranking(rows: readonly ComplianceRow[]): Ranked[] {
  const keys = new Map<string, { key: string | null; name: string; rows: ComplianceRow[] }>();
  for (const r of rows) {
    const id = r.key ?? '';
    const k = keys.get(id) ?? { key: r.key, name: r.name, rows: [] };
    k.rows.push(r);
    keys.set(id, k);
  }
  const periods = byPeriod(rows).map((p) => p.period);
  return [...keys.values()]
    .map((k) => {
      const t = totals(k.rows);
      const mine = byPeriod(k.rows);
      return { key: k.key, name: k.name, jobs: t.jobs, compliant: t.compliant, trend: periods.map((period) => mine.find((p) => p.period === period) ?? { period, jobs: 0, compliant: null }) };
    })
    .sort((a, b) => (b.compliant ?? -1) - (a.compliant ?? -1) || b.jobs - a.jobs || a.name.localeCompare(b.name));
}

const DAY = 86_400_000;
export const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** The default range: the last twelve weeks up to today. */
export function defaultRange(now: Date): { from: string; to: string } {
  return { from: isoDay(new Date(now.getTime() - 83 * DAY)), to: isoDay(now) };
}

/** The range of the same length just before `from`..`to` (days, `to` included). */
export function previousRange(from: string, to: string): { from: string; to: string } {
  const start = Date.parse(`${from}T00:00:00Z`);
  const days = Math.round((Date.parse(`${to}T00:00:00Z`) - start) / DAY) + 1;
  return { from: isoDay(new Date(start - days * DAY)), to: isoDay(new Date(start - DAY)) };
}
