import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { SettingToggle } from '@/components/ui/setting-toggle';
import { Card } from '@/components/ui/card';
import { api, serverReason } from '@/lib/api-client';
import type { Org } from '@/types/api';

interface SignInSettingsBody {
  password_login: boolean;
  sso_enabled: boolean;
}

const url = (id: string) => `/orgs/${encodeURIComponent(id)}/sign-in`;

/** How the members sign in (issue 30): a manager turns password login off when the company account is enough. */
export function SignInSettings({ org }: { org: Org }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const key = ['orgs', org.id, 'sign-in'];
  const settings = useQuery({ queryKey: key, queryFn: () => api.get<SignInSettingsBody>(url(org.id)) });
  const change = useMutation({
    mutationFn: (passwordLogin: boolean) => api.put<SignInSettingsBody>(url(org.id), { password_login: passwordLogin }),
    onSuccess: (next) => client.setQueryData(key, next),
  });
  const data = settings.data;
  return (
    <Card title={t('org.signIn.title')} titleId="org-sign-in-title">
      {data ? (
        <>
          <p className="muted">{data.sso_enabled ? t('org.signIn.lead') : t('org.signIn.noSso')}</p>
          <SettingToggle
            label={t('org.signIn.passwordLogin')}
            checked={data.password_login}
            disabled={change.isPending || (!data.sso_enabled && data.password_login)}
            onChange={(checked) => change.mutate(checked)}
            saved={change.isSuccess ? t('org.signIn.saved') : null}
          />
          {!data.password_login ? <p className="muted">{t('org.signIn.passwordLoginOffHint')}</p> : null}
        </>
      ) : null}
      {change.isError ? <Alert tone="error">{serverReason(change.error) ?? t('org.failed')}</Alert> : null}
    </Card>
  );
}
