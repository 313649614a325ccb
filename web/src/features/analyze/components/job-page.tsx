import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';

import { StatusBadge } from '@/components/status-badge';
import { Alert } from '@/components/ui/alert';
import { Spinner } from '@/components/ui/spinner';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { useJobPolling } from '@/features/analyze/api/get-job';
import { JobDownloads, JobReport, jobDisplayName } from '@/features/analyze/components/job-report';
import { useDurationText } from '@/features/analyze/components/job-result';
import { ApiError } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';
import { formatDateTime } from '@/lib/format';
import { TERMINAL_STATUSES } from '@/types/api';

/** A job's own page (/dashboard/jobs/:id): shareable, read from the server, polled while it runs. */
export function JobPage() {
  const { t, i18n } = useTranslation();
  const { id = '' } = useParams();
  const { user } = useAuth();
  const query = useJobPolling(id || null);
  const job = query.data?.job_id === id ? query.data : null;
  const notFound = query.error instanceof ApiError && (query.error.status === 404 || query.error.status === 400);
  const videoLength = useDurationText(job?.video_duration_sec ?? null);
  const recordedBy = job ? [job.user_full_name, job.user_email].filter(Boolean).join(' · ') : '';

  return (
    <div className="page">
      <p className="small">
        <Link to={paths.app.history.getHref()}>← {t('job.backToHistory')}</Link>
      </p>
      <Card className="job-panel" aria-labelledby="job-title">
        <div className="job-panel-head">
          <h1 id="job-title" className="card-title">
            {job ? jobDisplayName(job) : t('job.title')}
          </h1>
          {job ? <StatusBadge status={job.status} /> : null}
        </div>
        {notFound ? <Alert tone="error">{t('job.notFound')}</Alert> : query.isError && !job ? <Alert tone="error">{t('errors.pollFailed')}</Alert> : null}
        {query.isPending && !notFound ? <Spinner label={t('common.loading')} /> : null}
        {job ? (
          <>
            <dl className="job-facts">
              <div>
                <dt>{t('history.jobId')}</dt>
                <dd>
                  <code>{job.job_id}</code>
                </dd>
              </div>
              <div>
                <dt>{t('history.created')}</dt>
                <dd>{formatDateTime(job.created_at, i18n.language)}</dd>
              </div>
              <div>
                <dt>{t('job.file')}</dt>
                <dd>{job.input_filename || t('history.noFile')}</dd>
              </div>
              <div>
                <dt>{t('job.videoLength')}</dt>
                <dd>{videoLength}</dd>
              </div>
              {recordedBy ? (
                <div>
                  <dt>{t('job.recordedBy')}</dt>
                  <dd>{recordedBy}</dd>
                </div>
              ) : null}
              {job.site_id || job.crew_id || job.work_order ? (
                <>
                  <div>
                    <dt>{t('job.site')}</dt>
                    <dd>{job.site_name || t('job.unknown')}</dd>
                  </div>
                  <div>
                    <dt>{t('job.crew')}</dt>
                    <dd>{job.crew_name || t('job.unknown')}</dd>
                  </div>
                  <div>
                    <dt>{t('job.workOrder')}</dt>
                    <dd>{job.work_order || t('job.unknown')}</dd>
                  </div>
                </>
              ) : null}
            </dl>
            {/* The result's sections are h3, as under the analyze page's h2 panel title (axe heading-order). */}
            <h2 className="visually-hidden">{t('job.resultTitle')}</h2>
            <JobReport job={job} />
            {TERMINAL_STATUSES.has(job.status) ? (
              <div className="result-actions">
                <JobDownloads job={job} planName={user?.quota?.plan_name} />
              </div>
            ) : null}
          </>
        ) : null}
      </Card>
    </div>
  );
}
