import { lazy, Suspense, useEffect, useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button, ButtonLink } from '@/components/ui/button';
import { UnitSelect } from '@/components/ui/field';
import { Spinner } from '@/components/ui/spinner';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { downloadJobsCsv } from '@/features/compliance/api/download-csv';
import { useCompliance, type ComplianceFilters } from '@/features/compliance/api/get-compliance';
import { byPeriod, defaultRange, previousRange, ranking, totals, violationsByGroup, type Ranked } from '@/features/compliance/model/figures';
import { api } from '@/lib/api-client';
import { formatDateTime, formatNumber } from '@/lib/format';
import { useCurrentOrg, useOrgUnits } from '@/lib/org';
import type { LatestViolation } from '@/types/api';

// The chart library is loaded with this page only (docs/adr/0021).
const WeeklyChart = lazy(() => import('@/features/compliance/components/charts').then((m) => ({ default: m.WeeklyChart })));
const Sparkline = lazy(() => import('@/features/compliance/components/charts').then((m) => ({ default: m.Sparkline })));

const localeOf = (lang: string) => (lang === 'tr' ? 'tr-TR' : 'en-GB');
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function useFormats() {
  const { i18n } = useTranslation();
  return useMemo(() => {
    const locale = localeOf(i18n.language);
    const pct = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 });
    const day = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' });
    const pp = new Intl.NumberFormat(locale, { maximumFractionDigits: 1, signDisplay: 'exceptZero' });
    return {
      percent: (v: number | null) => (v === null ? '—' : pct.format(v)),
      period: (iso: string) => day.format(new Date(`${iso}T00:00:00Z`)),
      points: (v: number) => pp.format(v * 100),
      number: (v: number) => formatNumber(v, i18n.language),
    };
  }, [i18n.language]);
}

/** The filters, kept in the URL so a reload or a shared link shows the same figures. */
function useFilters(): [ComplianceFilters, (next: Partial<ComplianceFilters>) => void] {
  const [params, setParams] = useSearchParams();
  const fallback = defaultRange(new Date());
  const date = (key: 'from' | 'to') => {
    const v = params.get(key);
    return v && DATE.test(v) ? v : fallback[key];
  };
  const filters: ComplianceFilters = {
    from: date('from'),
    to: date('to'),
    ...(params.get('site_id') ? { site_id: params.get('site_id')! } : {}),
    ...(params.get('crew_id') ? { crew_id: params.get('crew_id')! } : {}),
    ...(params.get('job_type') ? { job_type: params.get('job_type')! } : {}),
  };
  const update = (next: Partial<ComplianceFilters>) => {
    const merged: Record<string, string | undefined> = { ...filters, ...next };
    const out = new URLSearchParams();
    for (const [k, v] of Object.entries(merged)) if (v) out.set(k, v);
    setParams(out, { replace: true });
  };
  return [filters, update];
}

function ViolationCrop({ v }: { v: LatestViolation }) {
  const { t, i18n } = useTranslation();
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let url: string | null = null;
    let live = true;
    api.blob(v.image_url, { headers: { Accept: 'image/*' } }).then(
      (blob) => {
        url = URL.createObjectURL(blob);
        if (live) setSrc(url);
      },
      () => undefined,
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [v.image_url]);
  const where = [v.site_name, v.crew_name].filter(Boolean).join(' · ');
  return (
    <li className="violation-card">
      {src ? <img src={src} alt={t('compliance.cropAlt', { group: v.group_name })} width={120} height={160} /> : <div className="violation-placeholder" aria-hidden="true" />}
      <div>
        <strong>{v.group_name}</strong>
        <p className="muted">{where || t('compliance.noPlace')}</p>
        <p className="muted">{formatDateTime(v.created_at, i18n.language)}</p>
        <Link to={paths.app.job.getHref(v.job_id)}>{t('compliance.openJob')}</Link>
      </div>
    </li>
  );
}

function RankingTable({ title, rows, fmt }: { title: string; rows: Ranked[]; fmt: ReturnType<typeof useFormats> }) {
  const { t } = useTranslation();
  return (
    <Card title={title} aria-label={title}>
      <div className="table-wrap">
        {/* On a phone each row stacks (table-stack): name, jobs and share on the left, the trend on the right, nothing cut (issue 40). */}
        <table className="table table-stack ranking-table" data-testid="ranking">
          <thead>
            <tr>
              <th scope="col" className="rank-cell">
                {t('compliance.rank')}
              </th>
              <th scope="col">{t('compliance.name')}</th>
              <th scope="col" className="num">
                {t('compliance.jobs')}
              </th>
              <th scope="col" className="num">
                {t('compliance.compliant')}
              </th>
              <th scope="col">{t('compliance.trend')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={r.key ?? 'none'}>
                <td className="num rank-cell">{fmt.number(i + 1)}</td>
                <th scope="row">
                  <span className="rank-inline" aria-hidden="true">
                    {fmt.number(i + 1)}.{' '}
                  </span>
                  {r.name}
                </th>
                <td className="num" data-label={t('compliance.jobs')}>
                  {fmt.number(r.jobs)}
                </td>
                <td className="num" data-label={t('compliance.compliant')}>
                  {fmt.percent(r.compliant)}
                </td>
                <td className="cell-action">
                  <Suspense fallback={null}>
                    <Sparkline periods={r.trend} label={t('compliance.trendOf', { name: r.name, values: r.trend.map((p) => fmt.percent(p.compliant)).join(', ') })} />
                  </Suspense>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}

export function CompliancePage() {
  const { t, i18n } = useTranslation();
  const fmt = useFormats();
  const org = useCurrentOrg();
  const orgId = org.data?.role === 'manager' ? org.data.id : undefined;
  const [filters, setFilters] = useFilters();
  const lang = i18n.language;
  const bySite = useCompliance(orgId, 'site', 'week', filters, lang);
  const byCrew = useCompliance(orgId, 'crew', 'week', filters, lang);
  const { job_type: _jt, ...withoutType } = filters;
  const byType = useCompliance(orgId, 'job_type', 'month', withoutType, lang);
  const previous = useCompliance(orgId, 'site', 'month', { ...filters, ...previousRange(filters.from, filters.to) }, lang);
  const sites = useOrgUnits(orgId, 'site', true);
  const crews = useOrgUnits(orgId, 'crew', true);
  const [csvFailed, setCsvFailed] = useState(false);
  const [csvBusy, setCsvBusy] = useState(false);
  const ids = useId();

  if (org.isPending) return <Spinner label={t('common.loading')} />;
  if (!org.data || org.data.role !== 'manager') {
    return (
      <div className="page">
        <h1 className="page-title">{t('compliance.title')}</h1>
        <Alert tone="info">{t('compliance.managersOnly')}</Alert>
        <ButtonLink to={paths.app.organisation.getHref()}>{t('nav.organisation')}</ButtonLink>
      </div>
    );
  }

  const rows = bySite.data?.rows ?? [];
  const sum = totals(rows);
  const before = totals(previous.data?.rows ?? []);
  const trend = sum.compliant !== null && before.compliant !== null ? sum.compliant - before.compliant : null;
  const groups = violationsByGroup(rows);
  const periods = byPeriod(rows);
  const maxGroup = groups[0]?.count ?? 1;
  const jobTypes = [...new Map((byType.data?.rows ?? []).map((r) => [r.key ?? '', r.name])).entries()].filter(([k]) => k);

  const csv = async () => {
    setCsvFailed(false);
    setCsvBusy(true);
    try {
      await downloadJobsCsv(org.data!.id, filters, lang);
    } catch {
      setCsvFailed(true);
    } finally {
      setCsvBusy(false);
    }
  };

  return (
    <div className="page compliance-page">
      <header className="page-head">
        <div>
          <h1 className="page-title">{t('compliance.title')}</h1>
          <p className="muted">{t('compliance.subtitle', { org: org.data.name })}</p>
        </div>
        <Button variant="secondary" onClick={() => void csv()} loading={csvBusy}>
          {t('compliance.downloadCsv')}
        </Button>
      </header>
      {csvFailed ? <Alert tone="error">{t('compliance.csvFailed')}</Alert> : null}

      <Card as="form" className="filters" aria-label={t('compliance.filters')} onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label className="field-label" htmlFor={`${ids}-1`}>
            {t('compliance.from')}
          </label>
          <input id={`${ids}-1`} type="date" className="input" value={filters.from} max={filters.to} onChange={(e) => DATE.test(e.target.value) && setFilters({ from: e.target.value })} />
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${ids}-2`}>
            {t('compliance.to')}
          </label>
          <input id={`${ids}-2`} type="date" className="input" value={filters.to} min={filters.from} onChange={(e) => DATE.test(e.target.value) && setFilters({ to: e.target.value })} />
        </div>
        <UnitSelect label={t('compliance.site')} emptyLabel={t('compliance.allSites')} value={filters.site_id} options={sites.data ?? []} onChange={(v) => setFilters({ site_id: v ?? undefined })} />
        <UnitSelect label={t('compliance.crew')} emptyLabel={t('compliance.allCrews')} value={filters.crew_id} options={crews.data ?? []} onChange={(v) => setFilters({ crew_id: v ?? undefined })} />
        <UnitSelect
          label={t('compliance.jobType')}
          emptyLabel={t('compliance.allJobTypes')}
          value={filters.job_type}
          options={jobTypes.map(([id, name]) => ({ id, name }))}
          onChange={(v) => setFilters({ job_type: v ?? undefined })}
        />
      </Card>

      {bySite.isError ? <Alert tone="error">{t('compliance.loadFailed')}</Alert> : null}
      {bySite.isPending ? <Spinner label={t('common.loading')} /> : null}

      <dl className="stats kpis" aria-label={t('compliance.summary')}>
        <div className="stat">
          <dt>{t('compliance.jobsThisPeriod')}</dt>
          <dd data-testid="kpi-jobs">{fmt.number(sum.jobs)}</dd>
        </div>
        <div className="stat">
          <dt>{t('compliance.shareWithout')}</dt>
          <dd data-testid="kpi-share">{fmt.percent(sum.compliant)}</dd>
        </div>
        <div className="stat">
          <dt>{t('compliance.trendVsPrevious')}</dt>
          <dd data-testid="kpi-trend">{trend === null ? '—' : t('compliance.points', { value: fmt.points(trend) })}</dd>
        </div>
        <div className="stat">
          <dt>{t('compliance.workersSeen')}</dt>
          <dd>{fmt.number(sum.workers)}</dd>
        </div>
      </dl>

      <div className="compliance-grid">
        <Card title={t('compliance.weekly')} titleId="weekly-title">
          {periods.length === 0 ? (
            <p className="muted">{t('compliance.noJobs')}</p>
          ) : (
            <>
              <Suspense fallback={<Spinner label={t('common.loading')} />}>
                <WeeklyChart
                  periods={periods}
                  label={t('compliance.chartLabel', { first: fmt.percent(periods[0]!.compliant), last: fmt.percent(periods.at(-1)!.compliant), weeks: periods.length })}
                  formatPercent={(v) => fmt.percent(v)}
                  formatPeriod={fmt.period}
                />
              </Suspense>
              <details className="chart-table">
                <summary>{t('compliance.showTable')}</summary>
                <table className="table">
                  <caption className="visually-hidden">{t('compliance.weekly')}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t('compliance.week')}</th>
                      <th scope="col" className="num">
                        {t('compliance.jobs')}
                      </th>
                      <th scope="col" className="num">
                        {t('compliance.compliant')}
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {periods.map((p) => (
                      <tr key={p.period}>
                        <th scope="row">{fmt.period(p.period)}</th>
                        <td className="num">{fmt.number(p.jobs)}</td>
                        <td className="num">{fmt.percent(p.compliant)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </details>
            </>
          )}
        </Card>

        <Card title={t('compliance.byEquipment')} titleId="by-equipment-title">
          {groups.length === 0 ? <p className="muted">{t('compliance.noViolations')}</p> : null}
          <ul className="bar-list" data-testid="by-equipment">
            {groups.map((g) => (
              <li key={g.group}>
                <span className="bar-label">{bySite.data?.groups[g.group] ?? g.group}</span>
                <span className="bar-track" aria-hidden="true">
                  <span className="bar-fill" style={{ width: `${Math.round((g.count / maxGroup) * 100)}%` }} />
                </span>
                <span className="num">{fmt.number(g.count)}</span>
              </li>
            ))}
          </ul>
        </Card>
      </div>

      <div className="compliance-grid">
        <RankingTable title={t('compliance.rankingSites')} rows={ranking(rows)} fmt={fmt} />
        <RankingTable title={t('compliance.rankingCrews')} rows={ranking(byCrew.data?.rows ?? [])} fmt={fmt} />
      </div>

      <Card title={t('compliance.latest')} titleId="latest-title">
        {(bySite.data?.latest_violations ?? []).length === 0 ? <p className="muted">{t('compliance.noViolations')}</p> : null}
        <ul className="violation-cards" data-testid="latest-violations">
          {(bySite.data?.latest_violations ?? []).map((v) => (
            <ViolationCrop key={v.job_id} v={v} />
          ))}
        </ul>
      </Card>
    </div>
  );
}
