import { type Dispatch, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';

import { OrgManagersHint } from '@/components/org-managers';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ProgressBar } from '@/components/ui/progress-bar';
import { Card } from '@/components/ui/card';
import { VideoPicker } from '@/features/analyze/components/video-picker';
import { COMPOSITES, FRAMES_PER_COMPOSITE, type AnalyzeFormEvent, type AnalyzeFormState, type StartBlocker } from '@/features/analyze/model/analyze-form';
import { paths } from '@/config/paths';
import { useCurrentOrg } from '@/lib/org';
import { analysesLeft, limitsText, planLabel } from '@/lib/plans';
import type { UploadProgress } from '@/lib/upload';
import type { Quota, Task } from '@/types/api';

export interface StartError {
  key?: string;
  text?: string;
}

export function AnalyzeForm({
  state,
  dispatch,
  tasks,
  tasksLoading,
  tasksFailed,
  blocker,
  busy,
  progress,
  startError,
  quota,
  onSubmit,
}: {
  state: AnalyzeFormState;
  dispatch: Dispatch<AnalyzeFormEvent>;
  tasks: Task[];
  tasksLoading: boolean;
  tasksFailed: boolean;
  blocker: StartBlocker | null;
  busy: boolean;
  progress: UploadProgress | null;
  startError: StartError | null;
  quota: Quota | undefined;
  onSubmit: () => void;
}) {
  const { t } = useTranslation();
  const orgMember = useCurrentOrg().data?.role === 'member';
  const left = quota ? analysesLeft(quota) : null;
  const firstTask = tasks[0]?.slug ?? null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!blocker) onSubmit();
  };
  // A refused start (403) says the same as the quota gate that follows it: the gate's alert says it.
  const startErrorText = startError ? (startError.text ?? t(startError.key ?? 'errors.startFailed')) : null;
  const progressDetail = progress
    ? progress.secondsLeft === null
      ? `${progress.percent}%`
      : t('analyze.upload.detail', { percent: progress.percent, seconds: progress.secondsLeft })
    : '';

  return (
    <Card as="form" className="analyze-form form-stack" title={t('analyze.form.title')} onSubmit={submit} aria-label={t('analyze.form.title')} noValidate>
      <VideoPicker file={state.file} disabled={busy} onChange={(file) => dispatch({ type: 'FileChosen', file })} onRemove={() => dispatch({ type: 'FileRemoved' })} />

      <fieldset className="choice-group" disabled={busy}>
        <legend className="field-label">{t('analyze.form.jobType')}</legend>
        <div className="segmented">
          {(['auto', 'manual'] as const).map((value) => (
            <label key={value} className={state.jobType === value ? 'segment active' : 'segment'}>
              <input type="radio" name="job_type" value={value} checked={state.jobType === value} onChange={() => dispatch({ type: 'JobTypeChosen', jobType: value, firstTask })} />
              <span>{t(`analyze.form.jobType_${value}`)}</span>
            </label>
          ))}
        </div>
      </fieldset>

      {state.jobType === 'manual' ? (
        <div className="field">
          <label className="field-label" htmlFor="analyze-task">
            {t('analyze.form.task')}
          </label>
          <select id="analyze-task" className="input" value={state.task} disabled={busy || tasksLoading} onChange={(event) => dispatch({ type: 'TaskChosen', task: event.target.value })}>
            {tasks.length === 0 ? <option value="">{tasksLoading ? t('common.loading') : t('analyze.form.noTasks')}</option> : null}
            {tasks.map((task) => (
              <option key={task.slug} value={task.slug}>
                {task.name}
              </option>
            ))}
          </select>
          {tasksFailed ? <p className="field-error">{t('analyze.form.tasksFailed')}</p> : null}
        </div>
      ) : null}

      <fieldset className="choice-group" disabled={busy}>
        <legend className="field-label">{t('analyze.form.sampling')}</legend>
        <div className="segmented">
          {(['person', 'uniform'] as const).map((value) => (
            <label key={value} className={state.sampling === value ? 'segment active' : 'segment'}>
              <input type="radio" name="sampling" value={value} checked={state.sampling === value} onChange={() => dispatch({ type: 'SamplingChosen', sampling: value })} />
              <span>{t(`analyze.form.sampling_${value}`)}</span>
            </label>
          ))}
        </div>
      </fieldset>

      <div className="advanced">
        <button type="button" className="advanced-toggle" aria-expanded={state.advancedOpen} aria-controls="advanced-settings" onClick={() => dispatch({ type: 'AdvancedToggled' })}>
          <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" className={state.advancedOpen ? 'chev open' : 'chev'}>
            <path d="M9 6l6 6-6 6" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
          {t('analyze.form.advanced')}
        </button>
        {state.advancedOpen ? (
          <div id="advanced-settings" className="advanced-body">
            <div className="field">
              <label className="field-label range-label" htmlFor="analyze-composites">
                <span>{t('analyze.form.composites')}</span>
                <output htmlFor="analyze-composites">{state.composites}</output>
              </label>
              <input
                id="analyze-composites"
                type="range"
                min={COMPOSITES.min}
                max={COMPOSITES.max}
                step={1}
                value={state.composites}
                disabled={busy}
                onChange={(event) => dispatch({ type: 'CompositesSet', value: Number(event.target.value) })}
              />
              <p className="field-hint">{t('analyze.form.compositesHint', { min: COMPOSITES.min, max: COMPOSITES.max })}</p>
            </div>
            <div className="field">
              <label className="field-label range-label" htmlFor="analyze-frames">
                <span>{t('analyze.form.frames')}</span>
                <output htmlFor="analyze-frames">{state.framesPerComposite}</output>
              </label>
              <input
                id="analyze-frames"
                type="range"
                min={FRAMES_PER_COMPOSITE.min}
                max={FRAMES_PER_COMPOSITE.max}
                step={1}
                value={state.framesPerComposite}
                disabled={busy}
                onChange={(event) => dispatch({ type: 'FramesSet', value: Number(event.target.value) })}
              />
              <p className="field-hint">{t('analyze.form.framesHint', { min: FRAMES_PER_COMPOSITE.min, max: FRAMES_PER_COMPOSITE.max })}</p>
            </div>
            <label className="checkbox">
              <input type="checkbox" aria-describedby="analyze-dedupe-hint" checked={state.dedupe} disabled={busy} onChange={(event) => dispatch({ type: 'DedupeSet', value: event.target.checked })} />
              <span>{t('analyze.form.dedupe')}</span>
            </label>
            <p id="analyze-dedupe-hint" className="field-hint">{t('analyze.form.dedupeHint')}</p>
          </div>
        ) : null}
      </div>

      {blocker === 'quota' ? (
        <Alert tone="warning">
          {/* The spec's text, the plan whose limit is used up, and the way to more analyses (issue 54). */}
          <p>{t('errors.quotaExceeded')}</p>
          {quota ? <p>{t('analyze.quota.exhaustedPlan', { plan: planLabel(t, quota.plan_name), limits: limitsText(t, quota) })}</p> : null}
          {orgMember ? (
            <OrgManagersHint text="quota" />
          ) : (
            <p>
              {t('analyze.quota.upgradePath')} <Link to={paths.pricing.getHref('upgrade')}>{t('analyze.quota.requestUpgrade')}</Link>
            </p>
          )}
        </Alert>
      ) : quota && left !== null ? (
        <p className="quota-left" role="status">
          {t('analyze.quota.left', { count: left, plan: planLabel(t, quota.plan_name) })}
        </p>
      ) : null}
      {startErrorText && blocker !== 'quota' ? <Alert tone="error">{startErrorText}</Alert> : null}
      {progress ? <ProgressBar value={progress.percent} label={t('analyze.upload.label')} detail={progressDetail} /> : null}

      <Button type="submit" size="lg" className="btn-block" disabled={blocker !== null} loading={busy && progress !== null}>
        {t('analyze.form.start')}
      </Button>
      {blocker === 'noFile' ? <p className="field-hint center">{t('analyze.form.needVideo')}</p> : null}
      {blocker === 'noTask' ? <p className="field-hint center">{t('analyze.form.needTask')}</p> : null}
      {blocker === 'analyzed' ? (
        <div className="analyzed-again">
          <p className="field-hint center">{t('analyze.form.alreadyAnalyzed')}</p>
          <Button variant="secondary" className="btn-block" onClick={() => dispatch({ type: 'AnalyzeAgain' })}>
            {t('analyze.form.analyzeAgain')}
          </Button>
        </div>
      ) : null}
      <p className="retention-note">
        <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
          <path d="M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z" fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" />
        </svg>
        {t('analyze.form.retention')}
      </p>
    </Card>
  );
}
