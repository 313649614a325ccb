import { describe, expect, it } from 'vitest';

import { byPeriod, defaultRange, previousRange, ranking, totals, violationsByGroup } from '@/features/compliance/model/figures';
import type { ComplianceRow } from '@/types/api';

const row = (key: string | null, period: string, jobs: number, bad: number, violations: Record<string, number> = {}): ComplianceRow => ({
  key,
  name: key ?? 'none',
  period_start: period,
  jobs,
  jobs_with_violations: bad,
  workers_seen: jobs * 2,
  violations,
});

describe('compliance figures', () => {
  const rows = [row('a', '2026-05-04', 4, 1, { 'pic1,pic2': 2 }), row('b', '2026-05-04', 2, 2, { 'pic23': 3, 'pic1,pic2': 1 }), row('a', '2026-05-11', 5, 0)];

  it('sums jobs, jobs with violations, workers and the share without violations', () => {
    expect(totals(rows)).toEqual({ jobs: 11, withViolations: 3, workers: 22, compliant: 8 / 11 });
    expect(totals([]).compliant).toBeNull();
  });

  it('adds violations per equipment group, most first', () => {
    expect(violationsByGroup(rows)).toEqual([
      { group: 'pic1,pic2', count: 3 },
      { group: 'pic23', count: 3 },
    ]);
  });

  it('gives each period its share, and ranks keys best first with a trend over every period', () => {
    expect(byPeriod(rows)).toEqual([
      { period: '2026-05-04', jobs: 6, compliant: 3 / 6 },
      { period: '2026-05-11', jobs: 5, compliant: 1 },
    ]);
    const ranked = ranking(rows);
    expect(ranked.map((r) => [r.key, r.compliant])).toEqual([
      ['a', 8 / 9],
      ['b', 0],
    ]);
    // b had no job in the second week: a gap in its trend line, not a zero.
    expect(ranked[1]!.trend).toEqual([
      { period: '2026-05-04', jobs: 2, compliant: 0 },
      { period: '2026-05-11', jobs: 0, compliant: null },
    ]);
  });

  it('compares with the period of the same length just before', () => {
    expect(previousRange('2026-05-11', '2026-05-17')).toEqual({ from: '2026-05-04', to: '2026-05-10' });
    expect(defaultRange(new Date('2026-05-17T10:00:00Z'))).toEqual({ from: '2026-02-23', to: '2026-05-17' });
  });
});
