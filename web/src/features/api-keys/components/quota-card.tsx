import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { useAuth } from '@/lib/auth';
import { planLabel } from '@/lib/plans';
import { formatNumber } from '@/lib/format';
import type { Quota } from '@/types/api';

function remaining(limit: number | null, used: number): number | null {
  return limit === null ? null : Math.max(0, limit - used);
}

function UsageRow({ label, used, limit }: { label: string; used: number; limit: number | null }) {
  const { t, i18n } = useTranslation();
  const left = remaining(limit, used);
  const ratio = limit === null || limit === 0 ? (limit === 0 ? 1 : 0) : Math.min(1, used / limit);
  return (
    <div className="usage-row">
      <div className="usage-head">
        <span className="usage-label">{label}</span>
        <span className="usage-value">
          {limit === null ? t('quota.usedUnlimited', { used: formatNumber(used, i18n.language) }) : t('quota.usedOf', { used: formatNumber(used, i18n.language), limit: formatNumber(limit, i18n.language) })}
        </span>
      </div>
      <div className="meter" aria-hidden="true">
        <div className={ratio >= 1 ? 'meter-fill full' : 'meter-fill'} style={{ width: `${Math.round(ratio * 100)}%` }} />
      </div>
      <div className="muted small">{left === null ? t('quota.unlimited') : t('quota.remaining', { count: left })}</div>
    </div>
  );
}

export function QuotaCard() {
  const { t } = useTranslation();
  const { user, refreshUser } = useAuth();
  const [refreshing, setRefreshing] = useState(false);
  const quota: Quota | undefined = user?.quota;
  const lifetimeLeft = quota ? remaining(quota.lifetime_limit, quota.lifetime_used) : null;
  return (
    <Card
      title={t('quota.title')}
      titleId="quota-title"
      actions={
        <Button
          variant="secondary"
          size="sm"
          loading={refreshing}
          onClick={async () => {
            setRefreshing(true);
            await refreshUser();
            setRefreshing(false);
          }}
        >
          {t('quota.refresh')}
        </Button>
      }
    >
      {quota ? (
        <>
          <div className="quota-plan">
            <span className="muted">{t('quota.plan')}</span>
            <Badge tone="accent">{planLabel(t, quota.plan_name)}</Badge>
            <Badge tone={lifetimeLeft === 0 ? 'danger' : 'info'}>{lifetimeLeft === null ? t('quota.lifetimeUnlimited') : t('quota.lifetimeLeft', { count: lifetimeLeft })}</Badge>
          </div>
          <div className="usage-grid">
            <UsageRow label={t('quota.daily')} used={quota.daily_used ?? 0} limit={quota.daily_limit ?? null} />
            <UsageRow label={t('quota.monthly')} used={quota.monthly_used ?? 0} limit={quota.monthly_limit ?? null} />
            <UsageRow label={t('quota.lifetime')} used={quota.lifetime_used ?? 0} limit={quota.lifetime_limit ?? null} />
          </div>
        </>
      ) : (
        <p className="muted">{t('quota.none')}</p>
      )}
    </Card>
  );
}
