import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { getJobPdf } from '@/features/analyze/api/get-job-pdf';
import { api } from '@/lib/api-client';
import { JobResultView } from '@/features/analyze/components/job-result';
import { JobTimeline } from '@/features/analyze/components/job-timeline';
import { canDownloadJson } from '@/features/analyze/model/result';
import { taskFallbackName } from '@/lib/format';
import { TERMINAL_STATUSES, type JobDetail } from '@/types/api';

function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** The name a job goes by: its job type's name, else its file name, else its id. */
export function jobDisplayName(job: JobDetail): string {
  const result = job.result;
  if (result?.job_display_name) return result.job_display_name;
  if (result?.job_type && result.job_type !== 'auto') return taskFallbackName(result.job_type);
  return job.input_filename ?? job.job_id;
}

export function JobInsights({ job }: { job: JobDetail }) {
  const { t } = useTranslation();
  if (job.status === 'error') {
    return (
      <Alert tone="error" title={t('analyze.insights.title')}>
        {t('analyze.insights.error', { error: job.error || t('analyze.insights.unknownError') })}
      </Alert>
    );
  }
  if (job.status === 'cancelled') {
    return (
      <Alert tone="warning" title={t('analyze.insights.title')}>
        <p>{t('analyze.insights.cancelled')}</p>
        {job.error ? <p className="small">{job.error}</p> : null}
      </Alert>
    );
  }
  return null;
}

/** Insights, the result of a finished job, what the route adds after it (the review of its findings), and its timeline (open while the job runs). */
export function JobReport({ job, children }: { job: JobDetail; children?: ReactNode }) {
  const { t } = useTranslation();
  const finished = TERMINAL_STATUSES.has(job.status);
  return (
    <>
      <JobInsights job={job} />
      {job.status === 'done' ? <JobResultView job={job} /> : null}
      {children}
      <details className="timeline-wrap" open={!finished}>
        <summary>{t('analyze.timeline.title')}</summary>
        <JobTimeline logs={job.logs ?? []} running={!finished} />
      </details>
    </>
  );
}

/** The downloads of a finished job: JSON and PDF for pro and enterprise, an upgrade hint for others. */
export function JobDownloads({ job, planName }: { job: JobDetail; planName: string | null | undefined }) {
  const { t, i18n } = useTranslation();
  const mayDownload = canDownloadJson(planName);
  const [pdfBusy, setPdfBusy] = useState(false);
  const [pdfFailed, setPdfFailed] = useState(false);
  const [jsonBusy, setJsonBusy] = useState(false);
  const [jsonFailed, setJsonFailed] = useState(false);
  const lang = i18n.language.startsWith('en') ? 'en' : 'tr';

  const downloadPdf = async () => {
    setPdfBusy(true);
    setPdfFailed(false);
    try {
      saveBlob(await getJobPdf(job.job_id, lang), `baret-job-${job.job_id}-${lang}.pdf`);
    } catch {
      setPdfFailed(true);
    } finally {
      setPdfBusy(false);
    }
  };

  // The server's copy (GET /jobs/{id}/result.json), so the download is recorded in the audit log.
  const downloadJson = async () => {
    setJsonBusy(true);
    setJsonFailed(false);
    try {
      saveBlob(await api.blob(`/jobs/${encodeURIComponent(job.job_id)}/result.json`, { headers: { Accept: 'application/json' } }), `baret-job-${job.job_id}.json`);
    } catch {
      setJsonFailed(true);
    } finally {
      setJsonBusy(false);
    }
  };

  return (
    <div className="download">
      <div className="download-buttons">
        {/* The PDF is what a manager hands on: the primary button; the JSON is for systems (issue 40). */}
        <Button onClick={() => void downloadPdf()} loading={pdfBusy} disabled={!mayDownload} aria-describedby={mayDownload ? undefined : 'download-hint'}>
          {t('analyze.result.downloadPdf')}
        </Button>
        <Button variant="secondary" onClick={() => void downloadJson()} loading={jsonBusy} disabled={!mayDownload} aria-describedby={mayDownload ? undefined : 'download-hint'}>
          {t('analyze.result.downloadJson')}
        </Button>
      </div>
      {pdfFailed ? <Alert tone="error">{t('analyze.result.pdfFailed')}</Alert> : null}
      {jsonFailed ? <Alert tone="error">{t('analyze.result.jsonFailed')}</Alert> : null}
      {!mayDownload ? (
        <p id="download-hint" className="field-hint">
          {t('analyze.result.downloadHint')} <Link to={paths.pricing.getHref('upgrade')}>{t('analyze.result.upgradeLink')}</Link>
        </p>
      ) : null}
    </div>
  );
}
