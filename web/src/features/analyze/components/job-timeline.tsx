import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';

import { ProgressBar } from '@/components/ui/progress-bar';
import { jobProgress } from '@/features/analyze/model/progress';
import { durationText, formatTime } from '@/lib/format';
import type { LogEntry } from '@/types/api';

const EVENT_TONE: Record<string, string> = {
  job_completed: 'ok',
  job_failed: 'bad',
  job_cancelled: 'warn',
  job_cancel_requested: 'warn',
  job_resumed: 'warn',
};

/** The worker's bookkeeping (prices, token use, where it stopped early): in the JSON, not a step a person follows (issue 40). */
const INTERNAL = new Set(['model_pricing', 'llm_usage', 'early_stop_triggered']);

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** An entry's figures in words ("24 kare", "Kompozit 2 / 6"), never the worker's keys; null when there is nothing to add. */
function detail(entry: LogEntry, logs: readonly LogEntry[], t: TFunction): string | null {
  const data = entry.data;
  if (!data) return null;
  const count = num(data.count);
  switch (entry.event) {
    case 'frames_sampling': {
      const [done, total] = [num(data.done), num(data.total)];
      return done !== null && total !== null ? t('analyze.timeline.framesOf', { done, total }) : null;
    }
    case 'video_opened': {
      const seconds = num(data.duration_sec);
      return seconds !== null ? t('analyze.timeline.videoLength', { time: durationText(t, seconds) }) : null;
    }
    case 'frames_sampled':
    case 'frames_saved':
      return count !== null ? t('analyze.timeline.frames', { count }) : null;
    case 'composites_created':
      return count !== null ? t('analyze.timeline.composites', { count }) : null;
    case 'composite_analyzed': {
      const index = num(data.index);
      const total = num([...logs].reverse().find((l) => l.event === 'composites_created')?.data?.count);
      if (index === null) return null;
      return total !== null ? t('analyze.timeline.compositeOf', { n: index + 1, total }) : t('analyze.timeline.composite', { n: index + 1 });
    }
    case 'job_classified':
      return data.method === 'manual' || data.method === 'model' || data.method === 'fallback' ? t(`analyze.timeline.method_${data.method}`) : null;
    case 'job_resumed': {
      const attempt = num(data.attempt);
      return attempt !== null ? t('analyze.timeline.attempt', { n: attempt }) : null;
    }
    default:
      return null;
  }
}

/** Where a running job is: the step, frames n/N, composites n/N and the time left. */
export function JobProgressBar({ logs }: { logs: LogEntry[] }) {
  const { t } = useTranslation();
  const progress = jobProgress(logs);
  const { frames, composites, secondsLeft } = progress;
  const parts = [
    frames.total !== null ? t('analyze.progress.frames', { done: frames.done, total: frames.total }) : null,
    composites.total !== null ? t('analyze.progress.composites', { done: composites.done, total: composites.total }) : null,
    secondsLeft !== null ? t('analyze.progress.left', { time: durationText(t, secondsLeft) }) : null,
  ].filter((part): part is string => part !== null);
  return <ProgressBar value={progress.percent} label={t(`analyze.progress.phase_${progress.phase}`)} detail={parts.join(' · ')} />;
}

/** Reports that only update the one before them (sampling progress): of a run of them, the timeline shows the latest. */
const UPDATES = new Set(['frames_sampling']);

/** The entries the timeline lists: each step once, a run of progress updates as its latest, no internal bookkeeping. */
export function timelineEntries(logs: readonly LogEntry[]): LogEntry[] {
  const shown = logs.filter((entry) => !INTERNAL.has(entry.event));
  return shown.filter((entry, index) => !(UPDATES.has(entry.event) && shown[index + 1]?.event === entry.event));
}

export function JobTimeline({ logs, running = false }: { logs: LogEntry[]; running?: boolean }) {
  const { t, i18n } = useTranslation();
  if (logs.length === 0) return <p className="muted small">{t('analyze.timeline.waiting')}</p>;
  return (
    <>
    {running ? <JobProgressBar logs={logs} /> : null}
    <ol className="timeline" aria-label={t('analyze.timeline.title')}>
      {timelineEntries(logs).map((entry, index) => {
        const extra = detail(entry, logs, t);
        return (
          <li key={`${entry.event}-${entry.timestamp}-${index}`} className={`timeline-item ${EVENT_TONE[entry.event] ?? ''}`}>
            <span className="timeline-dot" aria-hidden="true" />
            <span className="timeline-event">{t(`events.${entry.event}`, { defaultValue: entry.event })}</span>
            <time className="timeline-time" dateTime={entry.timestamp}>
              {formatTime(entry.timestamp, i18n.language)}
            </time>
            {extra ? <span className="timeline-extra">{extra}</span> : null}
          </li>
        );
      })}
    </ol>
    </>
  );
}
