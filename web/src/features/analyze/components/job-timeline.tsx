import { useTranslation } from 'react-i18next';

import { formatTime } from '@/lib/format';
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
  for (const key of ['count', 'frames', 'composites', 'index', 'slug', 'task', 'model']) {
    const value = data[key];
    if (typeof value === 'number' || typeof value === 'string') return `${key}: ${value}`;
  }
  return null;
}

export function JobTimeline({ logs }: { logs: LogEntry[]; running?: boolean }) {
  const { t, i18n } = useTranslation();
  if (logs.length === 0) return <p className="muted small">{t('analyze.timeline.waiting')}</p>;
  return (
    <ol className="timeline" aria-label={t('analyze.timeline.title')}>
      {logs.map((entry, index) => {
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
  );
}
