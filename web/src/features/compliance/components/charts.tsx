/**
 * The dashboard's charts, drawn as SVG with visx (docs/adr/0021): the weekly compliance bars with
 * their axes, and the small trend lines of the ranking. This module is loaded only on the
 * compliance page (React.lazy), so the chart code never weighs on the rest of the app. Colours come
 * from the theme's CSS variables, so the charts read in dark and light. Each chart is an image with
 * a text alternative; the page shows the same figures as a table.
 */
import { AxisBottom, AxisLeft } from '@visx/axis';
import { Group } from '@visx/group';
import { scaleBand, scaleLinear } from '@visx/scale';
import { Bar, LinePath } from '@visx/shape';

import type { Period } from '@/features/compliance/model/figures';

const MARGIN = { top: 12, right: 12, bottom: 36, left: 44 };

export function WeeklyChart({
  periods,
  label,
  formatPercent,
  formatPeriod,
  width = 720,
  height = 260,
}: {
  periods: Period[];
  label: string;
  formatPercent: (v: number) => string;
  formatPeriod: (period: string) => string;
  width?: number;
  height?: number;
}) {
  const innerW = width - MARGIN.left - MARGIN.right;
  const innerH = height - MARGIN.top - MARGIN.bottom;
  const x = scaleBand<string>({ domain: periods.map((p) => p.period), range: [0, innerW], padding: 0.25 });
  const y = scaleLinear<number>({ domain: [0, 1], range: [innerH, 0] });
  const every = Math.max(1, Math.ceil(periods.length / 8));
  return (
    <svg className="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label} data-testid="compliance-chart" preserveAspectRatio="xMidYMid meet">
      <Group left={MARGIN.left} top={MARGIN.top}>
        {[0.25, 0.5, 0.75, 1].map((v) => (
          <line key={v} x1={0} x2={innerW} y1={y(v)} y2={y(v)} className="chart-grid" />
        ))}
        {periods.map((p) =>
          p.compliant === null ? null : p.compliant === 0 ? (
            // A week with jobs and none compliant: a red mark above the axis and its figure, not an empty slot that reads as "no data" (issue 40).
            <g key={p.period} className="chart-zero">
              <rect x={x(p.period)} y={innerH - 4} width={x.bandwidth()} height={4} rx={2} />
              <text x={(x(p.period) ?? 0) + x.bandwidth() / 2} y={innerH - 8} textAnchor="middle" fontSize={11}>
                {formatPercent(0)}
              </text>
              <title>{`${formatPeriod(p.period)}: ${formatPercent(0)}`}</title>
            </g>
          ) : (
            <Bar key={p.period} x={x(p.period)} y={y(p.compliant)} width={x.bandwidth()} height={innerH - y(p.compliant)} className="chart-bar" rx={3}>
              <title>{`${formatPeriod(p.period)}: ${formatPercent(p.compliant)}`}</title>
            </Bar>
          ),
        )}
        <AxisLeft scale={y} numTicks={4} tickFormat={(v) => formatPercent(Number(v))} axisClassName="chart-axis" tickClassName="chart-tick" stroke="currentColor" tickStroke="currentColor" tickLabelProps={{ fill: 'currentColor', fontSize: 11, textAnchor: 'end', dx: -4, dy: 3 }} />
        <AxisBottom
          top={innerH}
          scale={x}
          tickValues={periods.filter((_, i) => i % every === 0).map((p) => p.period)}
          tickFormat={(v) => formatPeriod(String(v))}
          axisClassName="chart-axis"
          stroke="currentColor"
          tickStroke="currentColor"
          tickLabelProps={{ fill: 'currentColor', fontSize: 11, textAnchor: 'middle' }}
        />
      </Group>
    </svg>
  );
}

/**
 * A small trend line of weekly compliance (gaps where a week had no job), over a faint 0 % baseline;
 * a week at 0 % is a red dot on it, so it does not read as no data (issue 40).
 */
export function Sparkline({ periods, label, width = 120, height = 28 }: { periods: Period[]; label: string; width?: number; height?: number }) {
  const x = scaleLinear<number>({ domain: [0, Math.max(1, periods.length - 1)], range: [3, width - 3] });
  const y = scaleLinear<number>({ domain: [0, 1], range: [height - 4, 3] });
  const points = periods.map((p, i) => ({ i, v: p.compliant }));
  return (
    <svg className="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      <line x1={0} x2={width} y1={y(0)} y2={y(0)} className="sparkline-base" />
      <LinePath data={points} x={(d) => x(d.i)} y={(d) => y(d.v ?? 0)} defined={(d) => d.v !== null} className="sparkline-line" />
      {points.map((d) => (d.v === 0 ? <circle key={d.i} cx={x(d.i)} cy={y(0)} r={2.5} className="sparkline-zero" /> : null))}
    </svg>
  );
}

export default WeeklyChart;
