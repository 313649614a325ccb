import { useTranslation } from 'react-i18next';

import { Badge, type BadgeTone } from '@/components/ui/badge';
import type { JobStatus } from '@/types/api';

export type DisplayStatus = JobStatus | 'ready';

const TONES: Record<DisplayStatus, BadgeTone> = {
  ready: 'neutral',
  queued: 'info',
  running: 'accent',
  done: 'success',
  error: 'danger',
  cancelled: 'warning',
};

export function StatusBadge({ status }: { status: DisplayStatus }) {
  const { t } = useTranslation();
  return (
    <Badge tone={TONES[status] ?? 'neutral'}>
      {status === 'running' ? <span className="pulse-dot" aria-hidden="true" /> : null}
      {t(`status.${status}`)}
    </Badge>
  );
}
