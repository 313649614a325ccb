import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ProgressBar } from '@/components/ui/progress-bar';
import { Card } from '@/components/ui/card';
import { useUploadQueue } from '@/features/analyze/offline/use-upload-queue';
import { hasBackgroundSync } from '@/features/analyze/offline/background-sync';
import { formatBytes } from '@/lib/format';

/**
 * "Waiting to upload": the videos kept on this device until the network lets them go. `notice`: a
 * video was just kept here for want of a connection; said only while one still waits for it.
 */
export function UploadQueue({ userId, notice = false }: { userId: string | undefined; notice?: boolean }) {
  const { t, i18n } = useTranslation();
  const { items, remove } = useUploadQueue(userId);
  if (items.length === 0) return null;
  const waiting = items.some((item) => item.state === 'waiting');
  return (
    <Card className="upload-queue" aria-labelledby="upload-queue-title" style={{ display: 'grid', gap: 12 }}>
      <div>
        <h2 id="upload-queue-title" className="card-title">
          {t('offline.queue.title')}
        </h2>
        <p className="muted small" style={{ margin: 0 }}>
          {hasBackgroundSync() ? t('offline.queue.hintSync') : t('offline.queue.hintNoSync')}
        </p>
      </div>
      {notice && waiting ? <Alert tone="info">{t('offline.queued')}</Alert> : null}
      <ul className="recent-list" aria-label={t('offline.queue.title')}>
        {items.map((item) => {
          const percent = item.size > 0 ? Math.round((item.sent / item.size) * 100) : 0;
          return (
            <li key={item.id} className="recent-item" style={{ cursor: 'default', gridTemplateColumns: 'minmax(0, 1fr) auto' }} data-state={item.state}>
              <div style={{ display: 'grid', gap: 6, minWidth: 0 }}>
                <span className="recent-name" style={{ overflowWrap: 'anywhere' }}>
                  {item.name}
                </span>
                {/* Its state above the bar (issue 40: not "… upload status"), the name only for screen readers. */}
                <ProgressBar
                  value={percent}
                  label={t(`offline.queue.state_${item.state}`)}
                  name={t('offline.queue.progress', { name: item.name })}
                  detail={`${percent}% · ${formatBytes(item.size, i18n.language)}`}
                />
                {item.error ? (
                  <span className="field-error small" role="status">
                    {item.error.text ?? t(item.error.key ?? 'errors.startFailed')}
                  </span>
                ) : null}
              </div>
              <Button variant="ghost" size="sm" onClick={() => void remove(item)} aria-label={t('offline.queue.remove', { name: item.name })}>
                {t('offline.queue.removeShort')}
              </Button>
            </li>
          );
        })}
      </ul>
    </Card>
  );
}
