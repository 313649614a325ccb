import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';

import { StatusBadge } from '@/components/status-badge';
import { Badge } from '@/components/ui/badge';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/modal';
import { Spinner } from '@/components/ui/spinner';
import { Card } from '@/components/ui/card';
import { useCancelJob } from '@/features/history/api/cancel-job';
import { useDeleteJob } from '@/features/history/api/delete-job';
import { useAdminJobs } from '@/features/history/api/get-admin-jobs';
import { useJobs } from '@/features/history/api/get-jobs';
import { TeamJobs } from '@/features/history/components/team-jobs';
import { canCancel, filterJobs, jobTypeText, serverQuery } from '@/features/history/model/jobs';
import { useAuth } from '@/lib/auth';
import { useCurrentOrg } from '@/lib/org';
import { paths } from '@/config/paths';
import { formatCost, formatDateTime, modelText } from '@/lib/format';
import type { JobListItem } from '@/types/api';

type PendingAction = { kind: 'cancel' | 'delete'; job: JobListItem };

function useDebounced(value: string, ms: number): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return debounced;
}

/**
 * A manager chooses between every job of the organisation (the default, `?scope=org`) and their own
 * jobs (`?scope=mine`): a manager opens History to see the team's work (issue 54).
 */
function ScopeTabs({ team, onChange }: { team: boolean; onChange: (team: boolean) => void }) {
  const { t } = useTranslation();
  return (
    <div className="segmented" role="group" aria-label={t('teamJobs.scope')}>
      <Button size="sm" variant={team ? 'ghost' : 'primary'} aria-pressed={!team} onClick={() => onChange(false)}>
        {t('teamJobs.mine')}
      </Button>
      <Button size="sm" variant={team ? 'primary' : 'ghost'} aria-pressed={team} onClick={() => onChange(true)}>
        {t('teamJobs.team')}
      </Button>
    </div>
  );
}

export function HistoryPage() {
  const { t, i18n } = useTranslation();
  const { isAdmin } = useAuth();
  const org = useCurrentOrg(!isAdmin);
  const manager = !isAdmin && org.data?.role === 'manager' ? org.data : null;
  const [params, setParams] = useSearchParams();
  const team = manager !== null && params.get('scope') !== 'mine';
  const chooseScope = (next: boolean) => setParams(new URLSearchParams({ scope: next ? 'org' : 'mine' }), { replace: true });
  const [search, setSearch] = useState('');
  const serverSearch = useDebounced(search, 300);
  const [cancelling, setCancelling] = useState<ReadonlySet<string>>(new Set());
  const userJobs = useJobs(!isAdmin);
  const adminJobs = useAdminJobs(serverQuery(serverSearch, t, i18n.language), isAdmin, cancelling.size > 0);
  const query = isAdmin ? adminJobs : userJobs;
  const jobs = useMemo(
    () => (isAdmin ? (adminJobs.data ?? []) : filterJobs(userJobs.data ?? [], search, t, i18n.language)),
    [isAdmin, adminJobs.data, userJobs.data, search, t, i18n.language],
  );
  // A cancelled job shows "cancelling…" until the list says it has stopped.
  const stillCancelling = [...cancelling].filter((id) => {
    const row = adminJobs.data?.find((job) => job.job_id === id);
    return row !== undefined && canCancel(row);
  });
  if (stillCancelling.length !== cancelling.size) setCancelling(new Set(stillCancelling));
  const cancel = useCancelJob();
  const remove = useDeleteJob();
  const [pending, setPending] = useState<PendingAction | null>(null);
  const [actionFailed, setActionFailed] = useState(false);

  const confirm = async () => {
    if (!pending) return;
    setActionFailed(false);
    try {
      if (pending.kind === 'cancel') {
        const id = pending.job.job_id;
        setCancelling((current) => new Set([...current, id]));
        setPending(null);
        await cancel.mutateAsync(id);
      } else await remove.mutateAsync(pending.job.job_id);
    } catch {
      setActionFailed(true);
      setCancelling((current) => new Set([...current].filter((id) => id !== pending.job.job_id)));
    } finally {
      setPending(null);
    }
  };

  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1 className="page-title">{t('history.title')}</h1>
          <p className="muted">{isAdmin ? t('history.subtitleAdmin') : team ? t('teamJobs.subtitle', { org: manager.name }) : t('history.subtitle')}</p>
        </div>
        {manager ? <ScopeTabs team={team} onChange={chooseScope} /> : null}
      </header>
      {team ? (
        <TeamJobs org={manager} />
      ) : (
        <Card as="div">
          <div className="toolbar">
            <div className="search">
              <label htmlFor="history-search" className="visually-hidden">
                {t('history.search')}
              </label>
              <input id="history-search" type="search" className="input" placeholder={t('history.searchPlaceholder')} value={search} onChange={(e) => setSearch(e.target.value)} />
            </div>
            <Button variant="secondary" onClick={() => void query.refetch()} loading={query.isFetching}>
              {t('common.refresh')}
            </Button>
          </div>
          {query.isError ? <Alert tone="error">{t('errors.historyLoad')}</Alert> : null}
          {actionFailed ? <Alert tone="error">{t('errors.actionFailed')}</Alert> : null}
          {query.isPending ? (
            <Spinner label={t('common.loading')} />
          ) : jobs.length === 0 && !query.isError ? (
            <p className="empty muted">{search.trim() ? t('history.noMatch') : t('history.empty')}</p>
          ) : (
            <ul className="job-list" aria-label={t('history.listLabel')}>
              {jobs.map((job) => (
                <li key={job.job_id} className="job-row">
                  <div className="job-main">
                    <div className="job-line">
                      {cancelling.has(job.job_id) ? <Badge tone="warning">{t('history.cancelling')}</Badge> : <StatusBadge status={job.status} />}
                      <Link className="job-file" to={paths.app.job.getHref(job.job_id)} title={t('history.openNamed', { name: job.input_filename || job.job_id })}>
                        {job.input_filename || t('history.noFile')}
                      </Link>
                    </div>
                    <div className="job-meta">
                      <span>
                        <span className="meta-label">{t('history.jobType')}:</span> {jobTypeText(job, t)}
                      </span>
                      <span>
                        <span className="meta-label">{t('history.jobId')}:</span> <code>{job.job_id}</code>
                      </span>
                      <span>
                        <span className="meta-label">{t('history.created')}:</span> {formatDateTime(job.created_at, i18n.language)}
                      </span>
                      <span>
                        <span className="meta-label">{t('history.model')}:</span> {modelText(t, job.model_used)}
                      </span>
                      <span>
                        <span className="meta-label">{t('history.cost')}:</span> {formatCost(job.estimated_cost, job.currency, i18n.language)}
                      </span>
                      {isAdmin && (job.user_email || job.user_full_name) ? (
                        <span>
                          <span className="meta-label">{t('history.user')}:</span> {[job.user_full_name, job.user_email].filter(Boolean).join(' · ')}
                        </span>
                      ) : null}
                    </div>
                    {job.error ? <p className="job-error">{job.error}</p> : null}
                  </div>
                  {isAdmin ? (
                    <div className="job-actions">
                      {cancelling.has(job.job_id) ? null : canCancel(job) ? (
                        <Button size="sm" variant="secondary" onClick={() => setPending({ kind: 'cancel', job })} aria-label={t('history.cancelNamed', { id: job.job_id })}>
                          {t('history.cancel')}
                        </Button>
                      ) : (
                        <Button size="sm" variant="danger" onClick={() => setPending({ kind: 'delete', job })} aria-label={t('history.deleteNamed', { id: job.job_id })}>
                          {t('history.delete')}
                        </Button>
                      )}
                    </div>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
        </Card>
      )}
      <ConfirmDialog
        open={pending !== null}
        title={pending?.kind === 'cancel' ? t('history.confirmCancelTitle') : t('history.confirmDeleteTitle')}
        message={pending ? t(pending.kind === 'cancel' ? 'history.confirmCancel' : 'history.confirmDelete', { id: pending.job.job_id }) : ''}
        confirmLabel={pending?.kind === 'cancel' ? t('history.cancel') : t('history.delete')}
        cancelLabel={t('common.back')}
        closeLabel={t('common.close')}
        busy={cancel.isPending || remove.isPending}
        onCancel={() => setPending(null)}
        onConfirm={() => void confirm()}
      />
    </div>
  );
}
