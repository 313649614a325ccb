import { useTranslation } from 'react-i18next';

import { AuthCard } from '@/features/auth/components/auth-layout';
import { SsoCallback } from '@/features/auth/components/sso-callback';

export function SsoCallbackRoute() {
  const { t } = useTranslation();
  return (
    <AuthCard title={t('auth.sso.title')} subtitle={t('auth.sso.lead')}>
      <SsoCallback />
    </AuthCard>
  );
}
