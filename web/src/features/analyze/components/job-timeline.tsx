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
  early_stop_triggered: 'warn',
  job_resumed: 'warn',
};

function detail(entry: LogEntry): string | null {
  const data = entry.data;
  if (!data) return null;
  if (typeof data.done === 'number' && typeof data.total === 'number') return `${data.done}/${data.total}`;
  for (const key of ['count', 'frames', 'composites', 'index', 'slug', 'task', 'model']) {
    const value = data[key];
    if (typeof value === 'number' || typeof value === 'string') return `${key}: ${value}`;
  }
  return null;
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

/** The entries the timeline lists: each step once, a run of progress updates as its latest. */
export function timelineEntries(logs: readonly LogEntry[]): LogEntry[] {
  return logs.filter((entry, index) => !(UPDATES.has(entry.event) && logs[index + 1]?.event === entry.event));
}

export function JobTimeline({ logs, running = false }: { logs: LogEntry[]; running?: boolean }) {
  const { t, i18n } = useTranslation();
  if (logs.length === 0) return <p className="muted small">{t('analyze.timeline.waiting')}</p>;
  return (
    <>
    {running ? <JobProgressBar logs={logs} /> : null}
    <ol className="timeline" aria-label={t('analyze.timeline.title')}>
      {timelineEntries(logs).map((entry, index) => {
        const extra = detail(entry);
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
