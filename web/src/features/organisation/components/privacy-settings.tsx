import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { SettingToggle } from '@/components/ui/setting-toggle';
import { Card } from '@/components/ui/card';
import { api, serverReason } from '@/lib/api-client';
import type { Org } from '@/types/api';

/** The organisation's evidence privacy settings (issue 30; GET/PATCH /orgs/{id}/settings). */
export interface OrgPrivacySettings {
  blur_third_party: boolean;
  managers_see_unblurred: boolean;
}

const KEYS = ['blur_third_party', 'managers_see_unblurred'] as const;

/** How faces are treated in the organisation's evidence: every member reads it, managers change it. */
export function PrivacySettings({ org }: { org: Org }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const key = ['orgs', org.id, 'settings'];
  const url = `/orgs/${encodeURIComponent(org.id)}/settings`;
  const settings = useQuery({ queryKey: key, queryFn: () => api.get<OrgPrivacySettings>(url) });
  const save = useMutation({
    mutationFn: (next: Partial<OrgPrivacySettings>) => api.patch<OrgPrivacySettings>(url, next),
    onSuccess: (data) => client.setQueryData(key, data),
  });
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
