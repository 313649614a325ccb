import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { StatusBadge } from '@/components/status-badge';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/modal';
import { Spinner } from '@/components/ui/spinner';
import { useCancelJob } from '@/features/history/api/cancel-job';
import { useDeleteJob } from '@/features/history/api/delete-job';
import { useAdminJobs } from '@/features/history/api/get-admin-jobs';
import { useJobs } from '@/features/history/api/get-jobs';
import { useAuth } from '@/lib/auth';
import { formatCost, formatDateTime } from '@/lib/format';
import type { JobListItem } from '@/types/api';

/** Client-side search for users: id, file name, model and status. */
export function filterJobs(jobs: readonly JobListItem[], search: string): JobListItem[] {
  const needle = search.trim().toLowerCase();
  if (!needle) return [...jobs];
  return jobs.filter((job) => [job.job_id, job.input_filename, job.model_used, job.status].some((value) => (value ?? '').toLowerCase().includes(needle)));
}

export const canCancel = (job: JobListItem) => job.status === 'queued' || job.status === 'running';
export const canDelete = (job: JobListItem) => !canCancel(job);

type PendingAction = { kind: 'cancel' | 'delete'; job: JobListItem };

function useDebounced(value: string, ms: number): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return debounced;
}

export function HistoryPage() {
  const { t, i18n } = useTranslation();
  const { isAdmin } = useAuth();
  const [search, setSearch] = useState('');
  const serverSearch = useDebounced(search, 300);
  const userJobs = useJobs(!isAdmin);
  const adminJobs = useAdminJobs(serverSearch, isAdmin);
  const query = isAdmin ? adminJobs : userJobs;
  const jobs = useMemo(() => (isAdmin ? (adminJobs.data ?? []) : filterJobs(userJobs.data ?? [], search)), [isAdmin, adminJobs.data, userJobs.data, search]);
  const cancel = useCancelJob();
  const remove = useDeleteJob();
  const [pending, setPending] = useState<PendingAction | null>(null);
  const [actionFailed, setActionFailed] = useState(false);

  const confirm = async () => {
    if (!pending) return;
    setActionFailed(false);
    try {
      if (pending.kind === 'cancel') await cancel.mutateAsync(pending.job.job_id);
      else await remove.mutateAsync(pending.job.job_id);
    } catch {
      setActionFailed(true);
    } finally {
      setPending(null);
    }
  };

  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1 className="page-title">{t('history.title')}</h1>
          <p className="muted">{isAdmin ? t('history.subtitleAdmin') : t('history.subtitle')}</p>
        </div>
      </header>
      <div className="card">
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
                    <StatusBadge status={job.status} />
                    <span className="job-file" title={job.input_filename ?? ''}>
                      {job.input_filename || t('history.noFile')}
                    </span>
                  </div>
                  <div className="job-meta">
                    <span>
                      <span className="meta-label">{t('history.jobId')}:</span> <code>{job.job_id}</code>
                    </span>
                    <span>
                      <span className="meta-label">{t('history.created')}:</span> {formatDateTime(job.created_at, i18n.language)}
                    </span>
                    <span>
                      <span className="meta-label">{t('history.model')}:</span> {job.model_used || '—'}
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
                    {canCancel(job) ? (
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
      </div>
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
