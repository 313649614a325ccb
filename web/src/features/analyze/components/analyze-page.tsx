import { useEffect, useReducer, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { StatusBadge, type DisplayStatus } from '@/components/status-badge';
import { Alert } from '@/components/ui/alert';
import { Button, ButtonLink } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { useJobPolling } from '@/features/analyze/api/get-job';
import { useLatestJob } from '@/features/analyze/api/get-latest-job';
import { useTasks } from '@/features/analyze/api/get-tasks';
import { submitVideo } from '@/features/analyze/offline/submit-video';
import { UploadQueue } from '@/features/analyze/offline/upload-queue';
import { QueueError } from '@/features/analyze/offline/enqueue';
import { onQueuedJobCreated } from '@/features/analyze/offline/replay';
import { AnalyzeForm, type StartError } from '@/features/analyze/components/analyze-form';
import { RecordingContextCard, RecordPanel } from '@/features/analyze/components/record-panel';
import { JobDownloads, JobReport, jobDisplayName } from '@/features/analyze/components/job-report';
import { evolveAnalyzeForm, initialAnalyzeForm, startBlocker, toParams } from '@/features/analyze/model/analyze-form';
import { addRecentJob, loadRecentJobs, saveRecentJobs } from '@/features/analyze/model/recent-jobs';
import { startErrorFor } from '@/features/analyze/model/start-error';
import { ApiError } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';
import { contextPayload, lastRecordingContext } from '@/lib/org';
import { formatBytes, formatDateTime } from '@/lib/format';
import type { UploadProgress } from '@/lib/upload';
import { TERMINAL_STATUSES, type JobDetail } from '@/types/api';

/** `top`: what the route composes under the title (a manager's review queue, issue 53). */
export function AnalyzePage({ top }: { top?: ReactNode } = {}) {
  const { t, i18n } = useTranslation();
  const { user, refreshUser } = useAuth();
  const [form, dispatch] = useReducer(evolveAnalyzeForm, initialAnalyzeForm);
  const tasks = useTasks();
  const taskList = tasks.data ?? [];
  const [activeJobId, setActiveJobId] = useState<string | null>(null);
  const [viewedJob, setViewedJob] = useState<JobDetail | null>(null);
  const [uploading, setUploading] = useState(false);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [startError, setStartError] = useState<StartError | null>(null);
  // A start the server refused for quota blocks the form until the refreshed user says how much is
  // left, so the refusal and the disabled button show together.
  const [quotaRefused, setQuotaRefused] = useState(false);
  const [queuedNotice, setQueuedNotice] = useState(false);
  const [recent, setRecent] = useState<JobDetail[]>(() => loadRecentJobs(user?.id));
  // Site, crew and work order of the next video (remembered: the last choice stays).
  const [context, setContext] = useState(lastRecordingContext);
  const handledJobs = useRef(new Set<string>());
  const scrollToPanel = useRef(false);
  const [resumeChecked, setResumeChecked] = useState(false);

  const poll = useJobPolling(activeJobId);
  const activeJob = activeJobId && poll.data?.job_id === activeJobId ? poll.data : null;

  // Opening with no active job: resume the latest one if it is still queued or running.
  const latest = useLatestJob(!resumeChecked && activeJobId === null);
  if (!resumeChecked && !latest.isPending) {
    setResumeChecked(true);
    const job = latest.data;
    if (job && (job.status === 'queued' || job.status === 'running') && activeJobId === null) setActiveJobId(job.job_id);
  }

  // A video from the upload queue became a job: follow it here, as if it had been uploaded now.
  useEffect(
    () =>
      onQueuedJobCreated((job) => {
        setQueuedNotice(false);
        setActiveJobId((current) => current ?? job.job_id);
      }),
    [],
  );

  // On narrow screens (phones) the job panel sits below the form: once a job starts, bring it into
  // view, after the panel has rendered the job (so nothing moves under the scroll).
  useEffect(() => {
    if (!scrollToPanel.current || !activeJobId) return;
    scrollToPanel.current = false;
    if (!window.matchMedia?.('(max-width: 1099px)').matches) return;
    const reduced = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    document.getElementById('job-panel')?.scrollIntoView({ behavior: reduced ? 'auto' : 'smooth', block: 'start' });
  }, [activeJobId]);

  // Manual mode chosen before the task list arrived: pick the first task once it does.
  const firstTask = taskList[0]?.slug ?? null;
  useEffect(() => {
    dispatch({ type: 'TasksLoaded', firstTask });
  }, [firstTask]);

  // A finished job is kept among the recent ones and the quota is refreshed, once per job.
  useEffect(() => {
    if (!activeJob || !TERMINAL_STATUSES.has(activeJob.status) || handledJobs.current.has(activeJob.job_id)) return;
    handledJobs.current.add(activeJob.job_id);
    setRecent((list) => {
      const next = addRecentJob(list, activeJob);
      saveRecentJobs(user?.id, next);
      return next;
    });
    void refreshUser();
  }, [activeJob, refreshUser, user?.id]);

  const jobInFlight = activeJobId !== null && !(activeJob && TERMINAL_STATUSES.has(activeJob.status));
  const busy = uploading || jobInFlight;
  const canAnalyze = user?.quota?.can_analyze !== false && !quotaRefused;
  const blocker = startBlocker(form, { submitting: busy, canAnalyze });
  const shownJob = activeJob ?? (activeJobId ? null : viewedJob);
  const status: DisplayStatus = activeJobId ? (activeJob?.status ?? 'queued') : (viewedJob?.status ?? 'ready');

  const onStart = async () => {
    if (!form.file || blocker) return;
    setUploading(true);
    setStartError(null);
    setViewedJob(null);
    setProgress({ loaded: 0, total: form.file.size, percent: 0, secondsLeft: null });
    setQueuedNotice(false);
    try {
      const outcome = await submitVideo(form.file, { ...toParams(form), ...contextPayload(context) }, user?.id ?? '', setProgress);
      if (outcome.kind === 'queued') {
        // Kept on the device: the queue uploads it when the connection returns.
        setQueuedNotice(true);
        dispatch({ type: 'FileRemoved' });
        return;
      }
      const started = outcome.job;
      setActiveJobId(started.job_id);
      // The job holds one unit of the quota from now on (the server counts it at once): show the
      // count it leaves now, not when the job ends (issue 54).
      void refreshUser();
      dispatch({ type: 'Submitted' });
      scrollToPanel.current = true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) {
        setStartError(error.detail ? { text: error.detail } : { key: 'errors.quotaExceeded' });
        setQuotaRefused(true);
        void refreshUser().finally(() => setQuotaRefused(false));
      } else if (error instanceof QueueError) {
        const lang = i18n.language;
        setStartError(
          error.reason === 'storageUnavailable'
            ? { key: 'offline.storageUnavailable' }
            : error.available === null
              ? { key: 'offline.storageFullUnknown' }
              : { text: t('offline.storageFull', { needed: formatBytes(error.needed, lang), available: formatBytes(error.available, lang) }) },
        );
      } else {
        setStartError(startErrorFor(error));
      }
    } finally {
      setUploading(false);
      setProgress(null);
    }
  };

  const onNewAnalysis = () => {
    dispatch({ type: 'Reset' });
    setActiveJobId(null);
    setViewedJob(null);
    setStartError(null);
    setProgress(null);
  };

  const finished = shownJob !== null && TERMINAL_STATUSES.has(shownJob.status);

  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1 className="page-title">{t('analyze.title')}</h1>
          <p className="muted">{t('analyze.subtitle')}</p>
        </div>
      </header>
      {top}
      <RecordingContextCard value={context} onChange={setContext} />
      <Card className="record-card" title={t('record.title')} titleId="record-title" lead={t('record.hint')}>
        <RecordPanel params={toParams(initialAnalyzeForm)} context={context} userId={user?.id} />
      </Card>
      {/* The queue near the top, where a crew looks after recording (issue 40), not below the report. */}
      <UploadQueue userId={user?.id} notice={queuedNotice} />
      <div className="analyze-grid">
        <AnalyzeForm
          state={form}
          dispatch={dispatch}
          tasks={taskList}
          tasksLoading={tasks.isPending}
          tasksFailed={tasks.isError}
          blocker={blocker}
          busy={busy}
          progress={progress}
          startError={startError}
          quota={user?.quota}
          onSubmit={() => void onStart()}
        />
        <Card id="job-panel" className={activeJobId ? 'job-panel following' : 'job-panel'} aria-labelledby="job-panel-title">
          <div className="job-panel-head">
            <h2 id="job-panel-title" className="card-title">
              {shownJob ? jobDisplayName(shownJob) : t('analyze.panel.title')}
            </h2>
            <StatusBadge status={status} />
          </div>
          {poll.isError && activeJobId ? <Alert tone="error">{t('errors.pollFailed')}</Alert> : null}
          {!activeJobId && !viewedJob ? (
            <div className="empty">
              <svg viewBox="0 0 64 64" width="64" height="64" aria-hidden="true">
                <path d="M14 40c0-10 8-19 18-19s18 9 18 19" fill="none" stroke="var(--accent)" strokeWidth="3" />
                <rect x="10" y="39" width="44" height="6" rx="3" fill="var(--accent)" />
                <path d="M28 21v-5h8v5" fill="none" stroke="var(--accent)" strokeWidth="3" />
              </svg>
              <p>{t('analyze.panel.empty')}</p>
            </div>
          ) : null}
          {activeJobId && !activeJob ? <p className="muted">{t('analyze.panel.queuedHint')}</p> : null}
          {shownJob ? <JobReport job={shownJob} /> : null}
          {finished && shownJob ? (
            <div className="result-actions">
              <Button variant="secondary" onClick={onNewAnalysis}>
                {t('analyze.result.newAnalysis')}
              </Button>
              <ButtonLink variant="secondary" to={paths.app.job.getHref(shownJob.job_id)}>
                {t('analyze.result.openReport')}
              </ButtonLink>
              <JobDownloads job={shownJob} planName={user?.quota?.plan_name} />
            </div>
          ) : null}
        </Card>
      </div>
      {recent.length > 0 ? (
        <Card className="recent" title={t('analyze.recent.title')} titleId="recent-title">
          <ul className="recent-list">
            {recent.map((job) => (
              <li key={job.job_id}>
                <button
                  type="button"
                  className={shownJob?.job_id === job.job_id ? 'recent-item active' : 'recent-item'}
                  onClick={() => {
                    if (jobInFlight) return;
                    setActiveJobId(null);
                    setViewedJob(job);
                    // The panel is above the list: bring the job into view.
                    document.getElementById('job-panel-title')?.scrollIntoView({ behavior: 'smooth', block: 'start' });
                  }}
                  disabled={jobInFlight}
                >
                  <span className="recent-name">{jobDisplayName(job)}</span>
                  <span className="muted small">{formatDateTime(job.created_at, i18n.language)}</span>
                  <StatusBadge status={job.status} />
                </button>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
    </div>
  );
}
