import { type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';

import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { useAuth } from '@/lib/auth';
import { planLabel } from '@/lib/plans';
import { formatDateTime, formatNumber } from '@/lib/format';
import { useCurrentOrg } from '@/lib/org';

import { YourData } from './your-data';

function limitText(limit: number | null | undefined, unlimited: string, lang: string): string {
  return limit === null || limit === undefined ? unlimited : formatNumber(limit, lang);
}

/** Profile facts, usage and logout; `upgradeSlot` is where the route puts the upgrade request, `notificationsSlot` the notification preferences. */
export function ProfilePage({ upgradeSlot, notificationsSlot }: { upgradeSlot?: ReactNode; notificationsSlot?: ReactNode }) {
  const { t, i18n } = useTranslation();
  const { user, logout, isAdmin } = useAuth();
  const org = useCurrentOrg(user !== null).data;
  if (!user) return null;
  // Dates in the viewer's own zone and the app's one date format (issue 40), the zone named beside them.
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const quota = user.quota;
  const unlimited = t('quota.unlimited');
  const counters = quota
    ? [
        { key: 'quota.daily', used: quota.daily_used, limit: quota.daily_limit },
        { key: 'quota.monthly', used: quota.monthly_used, limit: quota.monthly_limit },
        { key: 'quota.lifetime', used: quota.lifetime_used, limit: quota.lifetime_limit },
      ]
    : [];

  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1 className="page-title">{t('profile.title')}</h1>
          <p className="muted">{t('profile.subtitle')}</p>
        </div>
        <Button
          variant="secondary"
          onClick={() => {
            logout();
          }}
        >
          {t('nav.logout')}
        </Button>
      </header>
      <div className="profile-grid">
        <Card title={t('profile.account')} titleId="account-title">
          <dl className="facts">
            <div>
              <dt>{t('profile.fullName')}</dt>
              <dd>{user.full_name || '—'}</dd>
            </div>
            <div>
              <dt>{t('profile.email')}</dt>
              <dd className="break">{user.email}</dd>
            </div>
            <div>
              <dt>{t('profile.lastLogin')}</dt>
              <dd>{formatDateTime(user.last_login_at, i18n.language)}</dd>
            </div>
            <div>
              <dt>{t('profile.joined')}</dt>
              <dd>{formatDateTime(user.created_at, i18n.language)}</dd>
            </div>
            {timeZone ? (
              <div>
                <dt>{t('profile.timezone')}</dt>
                <dd>{timeZone}</dd>
              </div>
            ) : null}
            <div>
              <dt>{t('profile.role')}</dt>
              <dd className="role-line">
                {isAdmin ? <Badge tone="accent">{t('nav.adminLabel')}</Badge> : null}
                {org ? <span className="break">{t('profile.orgRole', { role: t(`org.role_${org.role}`), org: org.name })}</span> : null}
                {!isAdmin && !org ? t('profile.roleUser') : null}
              </dd>
            </div>
          </dl>
          <Link to={paths.app.history.path} className="text-link">
            {t('profile.historyLink')} →
          </Link>
          <p className="muted">{t('profile.apiKeysOnReset')}</p>
          <Link to={paths.app.apiKeys.path} className="text-link">
            {t('profile.apiKeysLink')} →
          </Link>
        </Card>
        <Card title={t('profile.planTitle')} titleId="plan-title">
          <p className="plan-line">
            <span className="muted">{t('quota.plan')}</span> <Badge tone="accent">{planLabel(t, quota?.plan_name)}</Badge>
          </p>
          <dl className="counters">
            {counters.map((c) => (
              <div key={c.key} className="counter">
                <dt>{t(c.key)}</dt>
                <dd>
                  <span className="counter-value">{formatNumber(c.used ?? 0, i18n.language)}</span>
                  <span className="muted"> / {limitText(c.limit, unlimited, i18n.language)}</span>
                </dd>
              </div>
            ))}
          </dl>
        </Card>
        {notificationsSlot}
        <YourData />
        {upgradeSlot ? (
          <Card className="profile-upgrade" title={t('upgrade.title')} titleId="profile-upgrade-title" lead={t('upgrade.lead')}>
            {upgradeSlot}
          </Card>
        ) : null}
      </div>
    </div>
  );
}
