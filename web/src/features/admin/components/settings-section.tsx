import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';

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
    <section className="card" aria-label={t('admin.requireVerification')}>
      <label className="check-row">
        <input type="checkbox" checked={settings.data.require_email_verification} disabled={save.isPending} onChange={(e) => save.mutate({ require_email_verification: e.target.checked })} />{' '}
        {t('admin.requireVerification')}
      </label>
    </section>
  );
}
