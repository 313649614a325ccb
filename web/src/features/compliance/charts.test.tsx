import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { Sparkline, WeeklyChart } from '@/features/compliance/components/charts';
import type { Period } from '@/features/compliance/model/figures';

const period = (p: string, compliant: number | null): Period => ({ period: p, jobs: compliant === null ? 0 : 4, compliant });
const periods = [period('2026-W01', 0.75), period('2026-W02', 0), period('2026-W03', null), period('2026-W04', 1)];
const pct = (v: number) => `%${Math.round(v * 100)}`;

describe('compliance charts (issue 40: a week at 0 % is not "no data")', () => {
  it('marks a week at 0 % in the weekly chart with a red mark and its figure; a week without jobs stays empty', () => {
    const { container } = render(<WeeklyChart periods={periods} label="chart" formatPercent={pct} formatPeriod={(p) => p} />);
    expect(container.querySelectorAll('rect.chart-bar')).toHaveLength(2);
    const zero = container.querySelectorAll('.chart-zero');
    expect(zero).toHaveLength(1);
    expect(zero[0]!.querySelector('text')!.textContent).toBe('%0');
    expect(zero[0]!.querySelector('title')!.textContent).toBe('2026-W02: %0');
  });

  it('draws a 0 % week of a trend as a dot on a dashed baseline', () => {
    const { container } = render(<Sparkline periods={periods} label="trend" />);
    expect(container.querySelectorAll('circle.sparkline-zero')).toHaveLength(1);
    expect(container.querySelector('line.sparkline-base')).not.toBeNull();
  });
});
