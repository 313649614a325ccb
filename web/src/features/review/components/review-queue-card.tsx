import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Button, ButtonLink } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { downloadReviewedSet } from '@/features/review/api/download-reviewed-set';
import { REVIEW_QUEUE_LIMIT, useReviewQueue } from '@/features/review/api/get-review-queue';
import { useCurrentOrg } from '@/lib/org';

/**
 * On the dashboard, for a manager of an organisation: how many of its jobs have findings not yet
 * reviewed, the way to the team's review queue, and the reviewed findings as a labelled set to
 * download (issue 53; the server decides, and records the export in the audit log). Nothing for anyone else.
 */
export function ReviewQueueCard() {
  const { t } = useTranslation();
  const org = useCurrentOrg();
  const manager = org.data?.role === 'manager';
  const queue = useReviewQueue(manager);
  const [exporting, setExporting] = useState<'idle' | 'busy' | 'failed'>('idle');
  if (!manager) return null;
  const exportSet = async () => {
    if (!org.data) return;
    setExporting('busy');
    try {
      await downloadReviewedSet(org.data.id);
      setExporting('idle');
    } catch {
      setExporting('failed');
    }
  };
  const count = queue.data?.length ?? null;
  return (
    <Card className="review-queue-card" title={t('review.queue.title')} titleId="review-queue-title">
      <p className="muted" role="status">
        {count === null ? '' : count === 0 ? t('review.queue.none') : count >= REVIEW_QUEUE_LIMIT ? t('review.queue.many', { count }) : t('review.queue.count', { count })}
      </p>
      <ButtonLink variant={count ? 'primary' : 'secondary'} to={paths.app.reviewQueue.getHref()}>
        {t('review.queue.open')}
      </ButtonLink>{' '}
      <Button variant="secondary" loading={exporting === 'busy'} onClick={() => void exportSet()}>
        {t('review.queue.export')}
      </Button>
      <p className="muted">{t('review.queue.exportHint')}</p>
      {exporting === 'failed' && <p role="alert">{t('review.queue.exportFailed')}</p>}
    </Card>
  );
}
