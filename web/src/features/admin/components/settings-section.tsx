import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';

import { SettingToggle } from '@/components/ui/setting-toggle';
import { Card } from '@/components/ui/card';
import { api } from '@/lib/api-client';

interface AccountSettings {
  require_email_verification: boolean;
}

/** Account settings an admin changes (GET/PUT /admin/settings). */
export function SettingsSection() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: ['admin-settings'], queryFn: () => api.get<AccountSettings>('/admin/settings') });
  const save = useMutation({
    mutationFn: (next: Partial<AccountSettings>) => api.put<AccountSettings>('/admin/settings', next),
    onSuccess: (data) => queryClient.setQueryData(['admin-settings'], data),
  });
  if (!settings.data) return null;
  return (
    <Card aria-label={t('admin.requireVerification')}>
      <SettingToggle
        label={t('admin.requireVerification')}
        checked={settings.data.require_email_verification}
        disabled={save.isPending}
        onChange={(checked) => save.mutate({ require_email_verification: checked })}
      />
    </Card>
  );
}
