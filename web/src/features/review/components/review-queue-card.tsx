import { useTranslation } from 'react-i18next';

import { ButtonLink } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { REVIEW_QUEUE_LIMIT, useReviewQueue } from '@/features/review/api/get-review-queue';
import { useCurrentOrg } from '@/lib/org';

/**
 * On the dashboard, for a manager of an organisation: how many of its jobs have findings not yet
 * reviewed, and the way to the team's review queue (issue 53). Nothing for anyone else.
 */
export function ReviewQueueCard() {
  const { t } = useTranslation();
  const org = useCurrentOrg();
  const manager = org.data?.role === 'manager';
  const queue = useReviewQueue(manager);
  if (!manager) return null;
  const count = queue.data?.length ?? null;
  return (
    <Card className="review-queue-card" title={t('review.queue.title')} titleId="review-queue-title">
      <p className="muted" role="status">
        {count === null ? '' : count === 0 ? t('review.queue.none') : count >= REVIEW_QUEUE_LIMIT ? t('review.queue.many', { count }) : t('review.queue.count', { count })}
      </p>
      <ButtonLink variant={count ? 'primary' : 'secondary'} to={paths.app.reviewQueue.getHref()}>
        {t('review.queue.open')}
      </ButtonLink>
    </Card>
  );
}
