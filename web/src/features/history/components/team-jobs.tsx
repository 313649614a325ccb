import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';

import { StatusBadge } from '@/components/status-badge';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { UnitSelect } from '@/components/ui/field';
import { Spinner } from '@/components/ui/spinner';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { ORG_JOBS_LIMIT, useOrgJobs, type OrgJobFilters } from '@/features/history/api/get-org-jobs';
import { jobTypeText } from '@/features/history/model/jobs';
import { formatDateTime } from '@/lib/format';
import { useOrgMembers, useOrgUnits } from '@/lib/org';
import { JOB_STATUSES, type JobStatus, type Org } from '@/types/api';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const FILTER_KEYS = ['from', 'to', 'site_id', 'crew_id', 'user_id', 'status', 'has_violations'] as const;

/** The filters, kept in the URL (beside `scope=org`) so a reload or a shared link shows the same list. */
function useTeamFilters(): [OrgJobFilters, (next: Partial<OrgJobFilters>) => void] {
  const [params, setParams] = useSearchParams();
  const filters: OrgJobFilters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key);
    if (!value) continue;
    if ((key === 'from' || key === 'to') && !DATE.test(value)) continue;
    if (key === 'status' && !(JOB_STATUSES as readonly string[]).includes(value)) continue;
    if (key === 'has_violations' && value !== 'true' && value !== 'false') continue;
    (filters as Record<string, string>)[key] = value;
  }
  const update = (next: Partial<OrgJobFilters>) => {
    const out = new URLSearchParams(params);
    for (const [k, v] of Object.entries(next)) {
      if (v) out.set(k, v);
      else out.delete(k);
    }
    setParams(out, { replace: true });
  };
  return [filters, update];
}

/** Every job of the manager's organisation, filtered as on the compliance dashboard, each one opening its report. */
export function TeamJobs({ org }: { org: Org }) {
  const { t, i18n } = useTranslation();
  const ids = useId();
  const [filters, setFilters] = useTeamFilters();
  const jobs = useOrgJobs(filters, i18n.language, true);
  const sites = useOrgUnits(org.id, 'site', true);
  const crews = useOrgUnits(org.id, 'crew', true);
  const members = useOrgMembers(org.id);
  const rows = jobs.data ?? [];
  const statusOptions = JOB_STATUSES.map((s) => ({ id: s, name: t(`status.${s}`) }));
  const resultOptions = [
    { id: 'true', name: t('teamJobs.withViolations') },
    { id: 'false', name: t('teamJobs.withoutViolations') },
  ];
  const memberOptions = (members.data ?? []).map((m) => ({ id: m.user_id, name: m.full_name ? `${m.full_name} (${m.email})` : m.email }));

  return (
    <>
      <Card as="form" className="filters" aria-label={t('teamJobs.filters')} onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label className="field-label" htmlFor={`${ids}-from`}>
            {t('compliance.from')}
          </label>
          <input id={`${ids}-from`} type="date" className="input" value={filters.from ?? ''} max={filters.to} onChange={(e) => setFilters({ from: DATE.test(e.target.value) ? e.target.value : undefined })} />
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${ids}-to`}>
            {t('compliance.to')}
          </label>
          <input id={`${ids}-to`} type="date" className="input" value={filters.to ?? ''} min={filters.from} onChange={(e) => setFilters({ to: DATE.test(e.target.value) ? e.target.value : undefined })} />
        </div>
        <UnitSelect label={t('compliance.site')} emptyLabel={t('compliance.allSites')} value={filters.site_id} options={sites.data ?? []} onChange={(v) => setFilters({ site_id: v ?? undefined })} />
        <UnitSelect label={t('compliance.crew')} emptyLabel={t('compliance.allCrews')} value={filters.crew_id} options={crews.data ?? []} onChange={(v) => setFilters({ crew_id: v ?? undefined })} />
        <UnitSelect label={t('teamJobs.member')} emptyLabel={t('teamJobs.allMembers')} value={filters.user_id} options={memberOptions} onChange={(v) => setFilters({ user_id: v ?? undefined })} />
        <UnitSelect label={t('teamJobs.status')} emptyLabel={t('teamJobs.allStatuses')} value={filters.status} options={statusOptions} onChange={(v) => setFilters({ status: (v as JobStatus | null) ?? undefined })} />
        <UnitSelect
          label={t('teamJobs.result')}
          emptyLabel={t('teamJobs.anyResult')}
          value={filters.has_violations}
          options={resultOptions}
          onChange={(v) => setFilters({ has_violations: (v as 'true' | 'false' | null) ?? undefined })}
        />
      </Card>
      <Card as="div">
        <div className="toolbar">
          <p className="muted small" role="status">
            {jobs.isPending ? '' : rows.length >= ORG_JOBS_LIMIT ? t('teamJobs.latestOnly', { count: ORG_JOBS_LIMIT }) : t('teamJobs.count', { count: rows.length })}
          </p>
          <Button variant="secondary" onClick={() => void jobs.refetch()} loading={jobs.isFetching}>
            {t('common.refresh')}
          </Button>
        </div>
        {jobs.isError ? <Alert tone="error">{t('errors.historyLoad')}</Alert> : null}
        {jobs.isPending ? (
          <Spinner label={t('common.loading')} />
        ) : rows.length === 0 && !jobs.isError ? (
          <p className="empty muted">{t('teamJobs.empty')}</p>
        ) : (
          <ul className="job-list" aria-label={t('teamJobs.listLabel')}>
            {rows.map((job) => (
              <li key={job.job_id} className="job-row">
                <div className="job-main">
                  <div className="job-line">
                    <StatusBadge status={job.status} />
                    {job.has_violations === true ? <Badge tone="danger">{t('teamJobs.hasViolations')}</Badge> : null}
                    <Link className="job-file" to={paths.app.job.getHref(job.job_id)} title={t('history.openNamed', { name: job.input_filename || job.job_id })}>
                      {job.input_filename || t('history.noFile')}
                    </Link>
                  </div>
                  <div className="job-meta">
                    <span>
                      <span className="meta-label">{t('job.recordedBy')}:</span> {[job.user_full_name, job.user_email].filter(Boolean).join(' · ') || '—'}
                    </span>
                    <span>
                      <span className="meta-label">{t('job.site')}:</span> {job.site_name || '—'}
                    </span>
                    <span>
                      <span className="meta-label">{t('job.crew')}:</span> {job.crew_name || '—'}
                    </span>
                    <span>
                      <span className="meta-label">{t('job.workOrder')}:</span> {job.work_order || '—'}
                    </span>
                    <span>
                      <span className="meta-label">{t('history.jobType')}:</span> {jobTypeText(job, t)}
                    </span>
                    <span>
                      <span className="meta-label">{t('history.created')}:</span> {formatDateTime(job.created_at, i18n.language)}
                    </span>
                  </div>
                </div>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </>
  );
}
