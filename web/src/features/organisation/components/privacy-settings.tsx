import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { SettingToggle } from '@/components/ui/setting-toggle';
import { Card } from '@/components/ui/card';
import { useOrgSettings, useSaveOrgSettings } from '@/features/organisation/api/org-settings';
import { serverReason } from '@/lib/api-client';
import type { Org } from '@/types/api';

const KEYS = ['blur_third_party', 'managers_see_unblurred'] as const;

/** How faces are treated in the organisation's evidence: every member reads it, managers change it. */
export function PrivacySettings({ org }: { org: Org }) {
  const { t } = useTranslation();
  const settings = useOrgSettings(org.id);
  const save = useSaveOrgSettings(org.id);
  const manager = org.role === 'manager';
  return (
    <Card title={t('org.privacy.title')} titleId="org-privacy-title" lead={t('org.privacy.intro')}>
      {settings.data ? (
        <div className="stack">
          {KEYS.map((k) => (
            <SettingToggle
              key={k}
              label={t(`org.privacy.${k}`)}
              help={t(`org.privacy.${k}_help`)}
              checked={settings.data[k]}
              disabled={!manager || save.isPending}
              onChange={(checked) => save.mutate({ [k]: checked })}
            />
          ))}
          {manager ? null : <p className="muted small">{t('org.privacy.managersOnly')}</p>}
        </div>
      ) : null}
      {save.isError ? <Alert tone="error">{serverReason(save.error) ?? t('org.failed')}</Alert> : null}
    </Card>
  );
}
